package ledger

// HandoversWaiting is how many createDebt calls of the client and key wait
// for a running hand-over of theirs (handoverGroups); -1 when none runs.
func (s *Service) HandoversWaiting(clientID, keyID string) int {
	g := s.handovers
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.keys[handoverKey{clientID: clientID, keyID: keyID}]
	if st == nil {
		return -1
	}
	return len(st.waiting)
}

// SetHandoverParallel sets how many small groups of one client and key
// run at once (groupCommit.parallel).
func (s *Service) SetHandoverParallel(n int) {
	s.handovers.mu.Lock()
	defer s.handovers.mu.Unlock()
	s.handovers.parallel = n
}

// SetHandoverInOneStatement sets whether hand-overs write their rows with
// one statement (insertHandover) or with ent's inserts.
func (s *Service) SetHandoverInOneStatement(one bool) { s.handoverInOne = one }

// HandoverHeldSQL is the statement that reads what the client holds of a
// hand-over's invoice numbers and debtors (PostgreSQL).
const HandoverHeldSQL = handoverHeldSQL

// InvoiceLock is the advisory lock of an invoice number of the client
// (invoiceLock), which a hand-over of that number takes.
func InvoiceLock(clientID, number string) int64 { return invoiceLock(clientID, number) }
