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
