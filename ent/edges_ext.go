package ent

// Hand-written (not generated): what graph needs beyond ent's generated API.

// SetLoadedEdges gives a payment its debt and item as if eager-loaded, so
// that resolving payment.debt and payment.invoice sends no query. The caller
// vouches that d and i are the payment's debt and item.
func (_m *Payment) SetLoadedEdges(d *Debt, i *DebtInvoice) {
	_m.Edges.Debt, _m.Edges.Invoice = d, i
	_m.Edges.loadedTypes[0], _m.Edges.loadedTypes[1] = true, true
}

// Dialect is the SQL dialect of the transaction's database.
func (tx *Tx) Dialect() string { return tx.driver.Dialect() }

// RowScanner fills entities of one row of a hand-written query: Dest are
// the destinations to scan the row's columns into (in the order of the
// columns given to Scan*), Done builds the entities from them.
type RowScanner struct {
	Dest []any
	done []func() error
}

// Done assigns what was scanned to the entities.
func (s *RowScanner) Done() error {
	for _, f := range s.done {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// ScanDebt adds a debt's columns (of debt.Columns) to the row; the debt is
// filled by Done, and queries its edges through c.
func (s *RowScanner) ScanDebt(c *Client, columns []string) (*Debt, error) {
	e := &Debt{config: c.config}
	values, err := e.scanValues(columns)
	if err != nil {
		return nil, err
	}
	s.Dest = append(s.Dest, values...)
	s.done = append(s.done, func() error { return e.assignValues(columns, values) })
	return e, nil
}

// ScanDebtInvoice adds a debt item's columns (of debtinvoice.Columns).
func (s *RowScanner) ScanDebtInvoice(c *Client, columns []string) (*DebtInvoice, error) {
	e := &DebtInvoice{config: c.config}
	values, err := e.scanValues(columns)
	if err != nil {
		return nil, err
	}
	s.Dest = append(s.Dest, values...)
	s.done = append(s.done, func() error { return e.assignValues(columns, values) })
	return e, nil
}

// ScanPayment adds a payment's columns (of payment.Columns).
func (s *RowScanner) ScanPayment(c *Client, columns []string) (*Payment, error) {
	e := &Payment{config: c.config}
	values, err := e.scanValues(columns)
	if err != nil {
		return nil, err
	}
	s.Dest = append(s.Dest, values...)
	s.done = append(s.done, func() error { return e.assignValues(columns, values) })
	return e, nil
}
