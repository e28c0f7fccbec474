package ledger

import (
	"context"
	"errors"
	"strconv"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The operations of the audit trail: the use cases that change data, named
// as the API names them.
const (
	OpCreateClient       = "createClient"
	OpUpdateClient       = "updateClient"
	OpCreateDebtor       = "createDebtor"
	OpUpdateDebtor       = "updateDebtor"
	OpCreateInvoice      = "createInvoice"
	OpWithdrawInvoice    = "withdrawInvoice"
	OpCreateDebt         = "createDebt"
	OpAddDebtPayment     = "addDebtPayment"
	OpWithdrawDebt       = "withdrawDebt"
	OpCreateAPIKey       = "createApiKey"
	OpRevokeAPIKey       = "revokeApiKey"
	OpSetReferenceRate   = "setReferenceRate"
	OpSetCollectionTerms = "setCollectionTerms"
	OpDisputeDebt        = "disputeDebt"
	OpResolveDispute     = "resolveDispute"
	OpPaymentOrder       = "applyForPaymentOrder"
)

// auditRecord is a record a use case touched, with its statuses before
// and after where it has statuses.
type auditRecord struct {
	typ           auditeventrecord.RecordType
	id            string
	before, after *audit.Statuses
}

func touched(typ auditeventrecord.RecordType, id string) auditRecord {
	return auditRecord{typ: typ, id: id}
}

func touchedInt(typ auditeventrecord.RecordType, id scalar.IntID) auditRecord {
	return auditRecord{typ: typ, id: strconv.Itoa(int(id))}
}

// auditRecordRows bounds the rows of one insert of event records: six
// parameters a row, below the databases' parameter limits (65,535 on
// PostgreSQL, 32,766 on SQLite).
const auditRecordRows = 5000

// errNoTransaction fails a change whose event cannot be written: a change
// without its event must not commit.
var errNoTransaction = errors.New("ledger: a change outside a transaction cannot be recorded")

// event is what an audit event records besides its records: the actor and
// the operation.
type event struct {
	Actor
	operation string
}

// afterCommit tells the event feed (OnEventsCommitted) that the audit
// trail grew: after the transaction of ctx commits, or at once when there
// is none (a statement that committed by itself, as the payment
// statement run alone).
func (s *Service) afterCommit(ctx context.Context) {
	wake := s.committed
	if wake == nil {
		return
	}
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		wake()
		return
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			if err == nil {
				wake()
			}
			return err
		})
	})
}

// record appends the event of op by a, in the use case's transaction.
// clientID is the client whose data changed (nil for none), debtID the
// debt whose timeline the event joins (nil for none). A use case that fails
// after this rolls the event back with its work.
func (s *Service) record(ctx context.Context, e event, clientID *string, debtID *scalar.IntID, records ...auditRecord) error {
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		return errNoTransaction
	}
	s.afterCommit(ctx)
	db := s.db(ctx)
	created, err := eventCreate(db, e, clientID, debtID).Save(ctx)
	if err != nil {
		return err
	}
	return saveRecords(ctx, db, recordCreates(db, created.ID, clientID, records))
}

// eventCreate is the row of the event e, of clientID's data (nil for
// none), on debtID's timeline (nil for none).
func eventCreate(db *ent.Client, e event, clientID *string, debtID *scalar.IntID) *ent.AuditEventCreate {
	return db.AuditEvent.Create().
		SetNillableClientID(clientID).
		SetAPIKeyID(e.KeyID).
		SetAPIKeyName(e.KeyName).
		SetRole(auditevent.Role(e.Role)).
		SetOperation(e.operation).
		SetRequestID(e.RequestID).
		SetNillableDebtID(debtID)
}

// recordCreates are the rows of the records of the event eventID.
func recordCreates(db *ent.Client, eventID scalar.IntID, clientID *string, records []auditRecord) []*ent.AuditEventRecordCreate {
	creates := make([]*ent.AuditEventRecordCreate, len(records))
	for i, rec := range records {
		c := db.AuditEventRecord.Create().
			SetEventID(eventID).
			SetNillableClientID(clientID).
			SetRecordType(rec.typ).
			SetRecordID(rec.id)
		if rec.before != nil {
			c.SetBefore(rec.before)
		}
		if rec.after != nil {
			c.SetAfter(rec.after)
		}
		creates[i] = c
	}
	return creates
}

// saveRecords inserts event records, auditRecordRows at a time.
func saveRecords(ctx context.Context, db *ent.Client, creates []*ent.AuditEventRecordCreate) error {
	_, err := saveInChunks(ctx, creates, auditRecordRows, func(c []*ent.AuditEventRecordCreate) ([]*ent.AuditEventRecord, error) {
		return db.AuditEventRecord.CreateBulk(c...).Save(ctx)
	})
	return err
}

// recorded returns v once the event of its change is appended: the change
// and its event commit together or not at all.
func recorded[T any](s *Service, ctx context.Context, v T, e event, clientID *string, debtID *scalar.IntID, records ...auditRecord) (T, error) {
	if err := s.record(ctx, e, clientID, debtID, records...); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// DebtFactFields are the columns of a debt that its statuses (Debt.Facts)
// read: a query that selects columns for them selects these.
var DebtFactFields = []string{debt.FieldID, debt.FieldChargedAmount, debt.FieldPaidAmount, debt.FieldWithdrawnAt,
	debt.FieldCreatedAt, debt.FieldDemandSentAt, debt.FieldPaymentOrderAppliedAt}

// debtStatuses are a debt's statuses, as the API shows them now.
func (s *Service) debtStatuses(d *ent.Debt) *audit.Statuses {
	return audit.Debt(collection.ProjectDebt(d.Facts(), s.clock.At()), d.PaidAmount, d.IsDisputed())
}
