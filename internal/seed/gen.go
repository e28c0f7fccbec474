package seed

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"time"
	_ "time/tzdata" // Europe/Stockholm on machines without a zoneinfo database

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Time layout of the data.
const (
	// history is how far back the oldest debts and invoices go.
	history = 730 * 24 * time.Hour
	// newest is how long before the as-of day the newest debt was created.
	newest = time.Hour
	// handoverWindow is how long after a debt's creation its reported
	// payments and its withdrawal come, at most.
	handoverWindow = 120 * 24 * time.Hour
)

// Shares of the outcomes.
const (
	openDebtsPercent          = 35 // as in the benchmark (main_status = 2), unless Config.BenchOpen makes them its very debts
	withdrawnClosedEvery      = 10 // one closed debt in 10 is withdrawn, unless under 9 days old; the rest are paid in full
	linkedInvoicesPercent     = 40 // invoices whose number debt k's first item carries
	withdrawnInvoicesEvery    = 10 // one invoice in 10 is withdrawn, unless linked
	remindedInvoicesPercent   = 40 // invoices with a reminder date (once it has passed)
	corporationEvery          = 10 // debtor i is a corporation when i % 10 == 0
	debtorEmailPercent        = 80
	debtorPhonePercent        = 85
	debtorAddress2Percent     = 10
	debtorCareOfPercent       = 4
	itemDescriptionPercent    = 70
	articleDescriptionPercent = 50
	articleDiscountPercent    = 10
)

// Salts name the independent hash streams of the generator.
const (
	saltFirstName uint64 = iota + 1
	saltLastName
	saltSuffix
	saltStreet
	saltStreetNo
	saltAddress2
	saltCareOf
	saltZip
	saltCity
	saltEmail
	saltEmailCase
	saltPhone
	saltIdentForm
	saltDebtKind
	saltWithdrawn
	saltWithdrawAt
	saltComment
	saltItemDate
	saltItemAmount
	saltItemDesc
	saltReminder
	saltPayAmount
	saltPayTime
	saltPayDate
	saltBooked
	saltLinked
	saltInvoiceDate
	saltInvoiceTime
	saltDays
	saltInterest
	saltArticle
	saltQuantity
	saltPrice
	saltDiscount
	saltArticleDesc
	saltPayOrder
	saltOpen
)

// stockholm is where dates are read: the service's default time zone.
var stockholm = mustLocation("Europe/Stockholm")

func mustLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// generator derives every row from its number and the Config.
type generator struct {
	cfg    Config
	hotPPM uint64
	end    time.Time // the start of the as-of day: everything is before it
	// outcomes[i] and pays[i] are debt i's outcome and number of payments
	// (index 0 unused), planned over all debts at once (plan).
	outcomes []outcome
	pays     []uint8
}

func newGenerator(cfg Config) *generator {
	g := &generator{cfg: cfg, hotPPM: cfg.hotPPM(), end: cfg.AsOf.Start(stockholm).UTC()}
	g.plan()
	return g
}

// mix is SplitMix64's finaliser: a well-mixed 64-bit hash.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// h is the hash of row n in the stream salt.
func (g *generator) h(n int, salt uint64) uint64 {
	return mix(mix(g.cfg.Seed^(salt*0xd1b54a32d192ed03)) + uint64(n))
}

// pick is h reduced to 0..m-1.
func (g *generator) pick(n int, salt uint64, m int) int {
	return int(g.h(n, salt) % uint64(m))
}

// oneIn reports whether row n is the one of its block of every rows that
// stream salt picks: exactly one row in every, at no fixed position.
func (g *generator) oneIn(n int, salt uint64, every int) bool {
	return (n-1)%every == g.pick((n-1)/every, salt, every)
}

// percent reports whether row n falls in the first p percent of stream salt.
func (g *generator) percent(n int, salt uint64, p int) bool {
	return g.pick(n, salt, 100) < p
}

// uuidOf is the benchmark's id: md5(name) read as a UUID, so that
// md5('client:1')::uuid, the benchmark's hot client, is ours too.
func uuidOf(name string) string {
	sum := md5.Sum([]byte(name))
	h := hex.EncodeToString(sum[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// ClientID is the id of client k (1-based; client 1 is number 1001).
func ClientID(k int) string { return uuidOf("client:" + strconv.Itoa(k)) }

func debtorID(i int) string  { return uuidOf("debtor:" + strconv.Itoa(i)) }
func invoiceID(k int) string { return uuidOf("invoice:" + strconv.Itoa(k)) }

// hot reports whether row n (a debt, debtor or invoice) belongs to the hot
// client: spread evenly, floor(n·share) steps up at n. With a share of
// 0.25 that is n % 4 == 0, the benchmark's rule.
func (g *generator) hot(n int) bool {
	return uint64(n)*g.hotPPM/1e6 != uint64(n-1)*g.hotPPM/1e6
}

// clientOf is the client (1-based) of row n: the hot one, or else round the
// others, 2 + n % (clients-1), as in the benchmark.
func (g *generator) clientOf(n int) int {
	if g.cfg.Clients == 1 || g.hot(n) {
		return 1
	}
	return 2 + n%(g.cfg.Clients-1)
}

// hotCount is how many of rows 1..n belong to the hot client.
func (g *generator) hotCount(n int) int {
	if g.cfg.Clients == 1 {
		return n
	}
	return int(uint64(n) * g.hotPPM / 1e6)
}

// age spreads rows 1..n over the history, row n the newest: row i is
// newest + history·u² before the end, u = (n-i+½)/n, so that recent
// months are busier than old ones (about 10% of rows fall in the last 8
// days). Integer arithmetic, in microseconds.
func age(i, n int) time.Duration {
	span := uint64(history / time.Microsecond)
	u := uint64(2*(n-i) + 1)
	den := 4 * uint64(n) * uint64(n)
	hi, lo := bits.Mul64(span, u*u)
	q, _ := bits.Div64(hi, lo, den)
	return newest + time.Duration(q)*time.Microsecond
}

// debtCreated is when debt i (and debtor i) was created.
func (g *generator) debtCreated(i int) time.Time {
	return g.end.Add(-age(i, g.cfg.Debts))
}

// dateOf is the calendar date of t in Stockholm.
func dateOf(t time.Time) scalar.Date { return scalar.DateOf(t.In(stockholm)) }

// startOf is midnight of d in Stockholm, in UTC: how a caller's
// "2026-09-01T00:00:00+02:00" is stored.
func startOf(d scalar.Date) time.Time { return d.Start(stockholm).UTC() }

// luhnDigit is the check digit that makes digits+check pass the Luhn test.
func luhnDigit(digits string) byte {
	sum := 0
	for k := 0; k < len(digits); k++ {
		d := int(digits[len(digits)-1-k] - '0')
		if k%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}

// ---------------------------------------------------------------- clients

type clientRow struct {
	id, name, orgNumber, adress1, address2, zip, city, bank string
	email, contactName, contactEmail, contactPhone          string
	number                                                  int
	created                                                 time.Time
}

func (g *generator) client(k int) clientRow {
	name := ""
	if k <= len(clientNames) {
		name = clientNames[k-1]
	} else {
		name = fmt.Sprintf("%s %s AB", cities[g.pick(k, saltCity, len(cities))], companySuffixes[g.pick(k, saltSuffix, len(companySuffixes))])
	}
	org := "556" + fmt.Sprintf("%06d", 100000+(k*7919)%900000)
	org += string(luhnDigit(org))
	// A Bankgiro number: 7 digits (NNN-NNNN) or 8 (NNNN-NNNN), the last a
	// Luhn check digit over all of them.
	var bank string
	if k%2 == 1 {
		b := strconv.Itoa(500000 + (k*37)%400000)
		b += string(luhnDigit(b))
		bank = b[:3] + "-" + b[3:]
	} else {
		b := strconv.Itoa(5000000 + (k*371)%4000000)
		b += string(luhnDigit(b))
		bank = b[:4] + "-" + b[4:]
	}
	address2 := fmt.Sprintf("Box %d", 100+g.pick(k, saltAddress2, 9000))
	if k%2 == 0 {
		address2 = fmt.Sprintf("Våning %d", 1+g.pick(k, saltAddress2, 8))
	}
	domain := fmt.Sprintf("kund%d.example.se", k)
	first, last := firstNames[g.pick(k, saltFirstName, len(firstNames))], lastNames[g.pick(k, saltLastName, len(lastNames))]
	zip := 10000 + g.pick(k, saltZip, 89999)
	phone := g.pick(k, saltPhone, 10000000)
	return clientRow{
		id:           ClientID(k),
		number:       FirstClientNumber - 1 + k,
		name:         name,
		orgNumber:    org[:6] + "-" + org[6:],
		adress1:      fmt.Sprintf("%s %d", streets[g.pick(k, saltStreet, len(streets))], 1+g.pick(k, saltStreetNo, 80)),
		address2:     address2,
		zip:          fmt.Sprintf("%03d %02d", zip/100, zip%100),
		city:         cities[g.pick(k, saltCity, len(cities))],
		bank:         bank,
		email:        "faktura@" + domain,
		contactName:  first + " " + last,
		contactEmail: lowerASCII(asciiFold(first)+"."+asciiFold(last)) + "@" + domain,
		contactPhone: fmt.Sprintf("08-%03d %02d %02d", phone/10000, phone/100%100, phone%100),
		// Clients predate their data, in number order over a month.
		created: g.end.Add(-history - 30*24*time.Hour + time.Duration(k)*(30*24*time.Hour/time.Duration(g.cfg.Clients+1))),
	}
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ---------------------------------------------------------------- debtors

type debtorRow struct {
	id, client                       string
	corporation                      bool
	ident, name, address1, zip, city string
	address2, careOf, email, phone   *string
	created                          time.Time
}

// personnummer is debtor i's 12-digit personnummer: born between 1940 and
// 2008. With i = 25000·q + r, the birth day is a permutation of r and the
// birth number, for a fixed r, one of q: no two debtors share a number.
func (g *generator) personnummer(i int) string {
	q, r := i/25000, i%25000
	day := (r*7919 + int(g.cfg.Seed%25000)) % 25000
	dob := time.Date(1940, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day)
	nnn := 1 + (q*337+r*13+11)%999 // 001–999, one per q below 999
	ten := fmt.Sprintf("%02d%02d%02d%03d", dob.Year()%100, int(dob.Month()), dob.Day(), nnn)
	return fmt.Sprintf("%04d%02d%02d", dob.Year(), int(dob.Month()), dob.Day()) + ten[6:] + string(luhnDigit(ten))
}

// organisationsnummer is corporate debtor i's number: 556000000+i and a
// check digit (third digit 6–9 for i below 4,000,000).
func organisationsnummer(i int) string {
	base := strconv.Itoa(556000000 + i)
	return base + string(luhnDigit(base))
}

func (g *generator) debtor(i int) debtorRow {
	first := firstNames[g.pick(i, saltFirstName, len(firstNames))]
	last := lastNames[g.pick(i, saltLastName, len(lastNames))]
	corp := i%corporationEvery == 0
	d := debtorRow{
		id:          debtorID(i),
		client:      ClientID(g.clientOf(i)),
		corporation: corp,
		address1:    fmt.Sprintf("%s %d", streets[g.pick(i, saltStreet, len(streets))], 1+g.pick(i, saltStreetNo, 120)),
		city:        cities[g.pick(i, saltCity, len(cities))],
		created:     g.debtCreated(i),
	}
	zip := 10000 + g.pick(i, saltZip, 89999)
	d.zip = fmt.Sprintf("%03d %02d", zip/100, zip%100)
	var local string
	if corp {
		d.name = last + " " + companySuffixes[g.pick(i, saltSuffix, len(companySuffixes))] + " AB"
		org := organisationsnummer(i)
		d.ident = org[:6] + "-" + org[6:]
		local = "info." + asciiFold(last)
	} else {
		d.name = first + " " + last
		pn := g.personnummer(i)
		// Mostly written with the hyphen, sometimes without: both are the
		// same number to reuse and search.
		if g.percent(i, saltIdentForm, 70) {
			pn = pn[:8] + "-" + pn[8:]
		}
		d.ident = pn
		local = asciiFold(first) + "." + asciiFold(last)
	}
	if g.percent(i, saltAddress2, debtorAddress2Percent) {
		d.address2 = ptr(fmt.Sprintf("lgh %d", 1001+g.pick(i, saltAddress2+100, 300)))
	}
	if g.percent(i, saltCareOf, debtorCareOfPercent) {
		d.careOf = ptr("c/o " + firstNames[g.pick(i, saltCareOf+100, len(firstNames))] + " " + last)
	}
	if g.percent(i, saltEmail, debtorEmailPercent) {
		email := local + strconv.Itoa(i) + "@example.se"
		if !g.percent(i, saltEmailCase, 25) { // a quarter keep their capitals
			email = lowerASCII(email)
		}
		d.email = &email
	}
	if g.percent(i, saltPhone, debtorPhonePercent) {
		d.phone = ptr(fmt.Sprintf("07%d-%07d", g.pick(i, saltPhone+100, 10), g.pick(i, saltPhone+200, 10000000)))
	}
	return d
}

func ptr[T any](v T) *T { return &v }

// ---------------------------------------------------------------- invoices

type articleRow struct {
	name                         string
	description                  *string
	price, vat, incl, excl, disc collection.Money
	quantity, vatPercent         collection.Rate
}

type invoiceRow struct {
	id, client, number   string
	invoiceDate, dueDate scalar.Date
	days                 int
	interest             *collection.Rate
	excl, vat, incl      collection.Money
	reminderDate         *scalar.Date
	reminderFee          *collection.Money
	withdrawnAt          *time.Time
	withdrawComment      *string
	created, updated     time.Time
	linked               bool // debt k's first item carries its number
	articles             [ArticlesPerInvoice]articleRow
}

// linked reports whether invoice k is in collection: debt k (same client)
// carries its number on its first item.
func (g *generator) linked(k int) bool {
	return k <= g.cfg.Debts && k <= g.cfg.Invoices && g.percent(k, saltLinked, linkedInvoicesPercent)
}

func (g *generator) invoice(k int) invoiceRow {
	inv := invoiceRow{id: invoiceID(k), client: ClientID(g.clientOf(k)), linked: g.linked(k)}
	if inv.linked {
		// Invoiced 60–120 days before the debt was handed over.
		inv.invoiceDate = dateOf(g.debtCreated(k)).AddDays(-60 - g.pick(k, saltInvoiceDate, 61))
		inv.created = startOf(inv.invoiceDate).Add(8*time.Hour + time.Duration(g.pick(k, saltInvoiceTime, 9*3600))*time.Second)
	} else {
		inv.created = g.end.Add(-age(k, g.cfg.Invoices))
		inv.invoiceDate = dateOf(inv.created)
	}
	inv.number = fmt.Sprintf("F-%s-%06d", inv.invoiceDate.String()[:4], k)
	inv.days = [...]int{10, 20, 30}[g.pick(k, saltDays, 3)]
	inv.dueDate = inv.invoiceDate.AddDays(inv.days)
	asOf := g.cfg.AsOf
	if r := inv.dueDate.AddDays(14); r.Before(asOf) && g.percent(k, saltReminder, remindedInvoicesPercent) {
		inv.reminderDate = &r
		inv.reminderFee = ptr(collection.Money(6000))
	}
	switch g.pick(k, saltInterest, 3) {
	case 1:
		inv.interest = ptr(collection.Rate(85000)) // 8.5 %
	case 2:
		inv.interest = ptr(collection.Rate(105000)) // 10.5 %
	}
	for a := range ArticlesPerInvoice {
		n := k*ArticlesPerInvoice + a
		art := articleRow{name: articleNames[g.pick(n, saltArticle, len(articleNames))], vatPercent: 250000}
		if art.name == "Konsulttimme" {
			art.quantity = collection.Rate(5000 * (1 + g.pick(n, saltQuantity, 16))) // 0.5–8 hours
		} else {
			art.quantity = collection.Rate(10000 * (1 + g.pick(n, saltQuantity, 5)))
		}
		art.price = collection.Money(5000 + g.pick(n, saltPrice, 95000))
		gross := (int64(art.price)*int64(art.quantity) + 5000) / 10000
		if g.percent(n, saltDiscount, articleDiscountPercent) {
			art.disc = collection.Money(gross / 10)
		}
		art.excl = collection.Money(gross) - art.disc
		art.vat = (art.excl*25 + 50) / 100
		art.incl = art.excl + art.vat
		if g.percent(n, saltArticleDesc, articleDescriptionPercent) {
			art.description = ptr(fmt.Sprintf("Artikel %d på faktura %s", a+1, inv.number))
		}
		inv.articles[a] = art
		inv.excl += art.excl
		inv.vat += art.vat
		inv.incl += art.incl
	}
	inv.updated = inv.created
	if !inv.linked && g.oneIn(k, saltWithdrawn, withdrawnInvoicesEvery) {
		w := inv.created.Add(min(30*24*time.Hour, g.end.Sub(inv.created)/2)).Truncate(time.Microsecond)
		inv.withdrawnAt = &w
		inv.withdrawComment = ptr(withdrawComments[g.pick(k, saltComment, len(withdrawComments))])
		inv.updated = w
	}
	return inv
}

// ---------------------------------------------------------------- debts

type itemRow struct {
	id                   int
	number               string
	description          *string
	invoiceDate, dueDate time.Time
	dueOn                scalar.Date // the due day, as createDebt keeps it
	reminderDate         *time.Time
	amount, paid         collection.Money
}

type paymentRow struct {
	debt, item      int // debt id and debt item id
	amount          collection.Money
	transactionDate scalar.Date
	bookedDate      *scalar.Date
	source          string
	created         time.Time
	seq             int // order within the debt
}

type debtRow struct {
	id, client       int
	debtor           string
	original, paid   collection.Money
	withdrawnAt      *time.Time
	withdrawComment  *string
	created, updated time.Time
	items            [ItemsPerDebt]itemRow
	payments         []paymentRow
}

// outcome is what became of a debt by the as-of date.
type outcome uint8

const (
	outcomeOpen      outcome = iota // in collection: unpaid or partly paid
	outcomePaid                     // paid in full
	outcomeWithdrawn                // withdrawn by the client, after part payments or none
)

// open reports whether debt i is open at the as-of date.
func (g *generator) open(i int) bool {
	if g.cfg.BenchOpen {
		return benchOpen(i)
	}
	return g.percent(i, saltOpen, openDebtsPercent)
}

// withdrawable reports whether debt i may have been withdrawn: after the
// demand's 8 days (which also keeps the benchmark's Q4 debt, 199996, a day
// old, open to payments).
func (g *generator) withdrawable(i int) bool {
	return g.debtCreated(i).Before(g.end.AddDate(0, 0, -collection.DemandDays-1))
}

// wantsMore reports whether debt i's kind asks for a payment beyond the
// least its outcome needs: an opening payment before hand-over or both
// items paid one by one (paid in full); an opening payment, a part payment
// or its first item paid (open); a part payment before withdrawal.
func (g *generator) wantsMore(i int) bool {
	kind := g.pick(i, saltDebtKind, 4)
	switch g.outcomes[i] {
	case outcomePaid, outcomeWithdrawn:
		return kind <= 1
	default:
		return kind <= 2
	}
}

// plan decides every debt's outcome and number of payments.
//
// 35 % of the debts are open (openDebtsPercent). With Config.BenchOpen they
// are the benchmark's: debt i is open exactly when data.sql gives it
// main_status = 2 (benchOpen), so that the benchmark's Q1 (the hot client's
// open debts) has the same rows here, whatever the seed. Of the others
// (closed), one in 10 is withdrawn and the rest are paid in full, each with
// at least one payment. When there are fewer payments than debts to pay in
// full, as many more of them are withdrawn instead, in a seeded order, those
// past their 8 days of demand first. The payments left over go, in the same
// order over all debts, first one each to the debts whose kind asks for one
// more (wantsMore), then round after round one more to every debt (at most
// MaxPaymentsPerDebt), until exactly Config.Payments are placed.
func (g *generator) plan() {
	d, left := g.cfg.Debts, g.cfg.Payments
	g.outcomes, g.pays = make([]outcome, d+1), make([]uint8, d+1)
	paid := 0
	for i := 1; i <= d; i++ {
		switch {
		case g.open(i):
			g.outcomes[i] = outcomeOpen
		case g.pick(i, saltWithdrawn, withdrawnClosedEvery) == 0 && g.withdrawable(i):
			g.outcomes[i] = outcomeWithdrawn
		default:
			g.outcomes[i] = outcomePaid
			paid++
		}
	}
	// The seeded order: debt ids in the low 21 bits (MaxDebts < 2^21)
	// under the hash, so that sorting the keys sorts by the hash.
	order := make([]uint64, d)
	for i := 1; i <= d; i++ {
		order[i-1] = g.h(i, saltPayOrder)<<21 | uint64(i)
	}
	slices.Sort(order)
	debt := func(k int) int { return int(order[k] & (1<<21 - 1)) }
	for _, anyAge := range []bool{false, true} {
		for k := 0; k < d && paid > left; k++ {
			if i := debt(k); g.outcomes[i] == outcomePaid && (anyAge || g.withdrawable(i)) {
				g.outcomes[i] = outcomeWithdrawn
				paid--
			}
		}
	}
	for i := 1; i <= d; i++ {
		if g.outcomes[i] == outcomePaid {
			g.pays[i] = 1
		}
	}
	left -= paid
	for k := 0; k < d && left > 0; k++ {
		if i := debt(k); g.wantsMore(i) {
			g.pays[i]++
			left--
		}
	}
	// Validate bounds the payments by MaxPaymentsPerDebt on every debt.
	for left > 0 {
		placed := false
		for k := 0; k < d && left > 0; k++ {
			if i := debt(k); g.pays[i] < MaxPaymentsPerDebt {
				g.pays[i]++
				left--
				placed = true
			}
		}
		if !placed {
			return
		}
	}
}

// paymentCount is how many payments debt i gets.
func (g *generator) paymentCount(i int) int { return int(g.pays[i]) }

// share is between lo and hi percent of x, at least 1 öre and less than x.
func (g *generator) share(x collection.Money, n int, salt uint64, lo, hi int) collection.Money {
	p := int64(lo + g.pick(n, salt, hi-lo+1))
	v := collection.Money(int64(x) * p / 100)
	return min(max(v, 1), x-1)
}

func (g *generator) debt(i int) debtRow {
	created := g.debtCreated(i)
	d := debtRow{id: i, client: g.clientOf(i), debtor: debtorID(i), created: created, updated: created}
	day := dateOf(created)

	// The items: the first carries invoice i's number when that invoice is
	// in collection, else its own; the second is invoiced 15 days later.
	first := day.AddDays(-60 - g.pick(i, saltItemDate, 61))
	for n := range ItemsPerDebt {
		it := itemRow{id: ItemsPerDebt*(i-1) + n + 1}
		invDate, days := first.AddDays(15*n), 30
		if n == 0 && g.linked(i) {
			inv := g.invoice(i)
			it.number, invDate, days, it.amount = inv.number, inv.invoiceDate, inv.days, inv.incl
			if inv.reminderDate != nil {
				it.reminderDate = ptr(startOf(*inv.reminderDate))
			}
		} else {
			it.number = fmt.Sprintf("%s-%07d", invDate.String()[:4], it.id)
			it.amount = collection.Money(5000 + g.pick(it.id, saltItemAmount, 2_995_001)) // 50–30,000 kr
			if g.percent(it.id, saltReminder, 50) {
				it.reminderDate = ptr(startOf(invDate.AddDays(days + 14)))
			}
		}
		it.invoiceDate, it.dueDate, it.dueOn = startOf(invDate), startOf(invDate.AddDays(days)), invDate.AddDays(days)
		if g.percent(it.id, saltItemDesc, itemDescriptionPercent) {
			it.description = ptr(itemDescriptions[g.pick(it.id, saltItemDesc+100, len(itemDescriptions))])
		}
		d.items[n] = it
		d.original += it.amount
	}

	// Withdrawal and reported payments fall in the window after hand-over.
	window := min(handoverWindow, g.end.Add(-time.Minute).Sub(created))
	at := func(permille int) time.Time {
		return created.Add(window / 1000 * time.Duration(permille)).Truncate(time.Microsecond)
	}
	out := g.outcomes[i]
	lastPermille := 950
	if out == outcomeWithdrawn {
		lastPermille = 750 // paid before the withdrawal
	}

	// The payments: how many the plan gave the debt, what they are from its
	// outcome and its kind.
	m := g.paymentCount(i)
	kind := g.pick(i, saltDebtKind, 4)
	a1, a2 := d.items[0].amount, d.items[1].amount
	type pay struct {
		item    int
		amount  collection.Money
		opening bool
	}
	var pays []pay
	// pieces pays amount x of item n in k reported payments: each a part
	// (20–50 %) of what is left, the last the rest.
	pieces := func(n int, x collection.Money, k int) {
		for range k - 1 {
			v := g.share(x, i*16+len(pays), saltPayAmount, 20, 50)
			pays = append(pays, pay{n, v, false})
			x -= v
		}
		pays = append(pays, pay{n, x, false})
	}
	switch {
	case m == 0:
	case out == outcomePaid && m == 1: // everything in one payment, designated to the first item
		pays = []pay{{0, d.original, false}}
	case out == outcomePaid: // each item paid in full, the first in half the payments (rounded up)
		k0 := (m + 1) / 2
		if kind == 0 && k0 >= 2 { // starting with a part paid before hand-over
			opening := g.share(a1, i, saltPayAmount, 20, 60)
			pays = append(pays, pay{0, opening, true})
			pieces(0, a1-opening, k0-1)
		} else {
			pieces(0, a1, k0)
		}
		pieces(1, a2, m-k0)
	default: // open or withdrawn: part payments, never the whole debt
		switch kind {
		case 0: // a part paid before hand-over
			pays = []pay{{0, g.share(a1, i, saltPayAmount, 20, 60), true}}
		case 2: // the first item paid
			pays = []pay{{0, a1, false}}
		default: // a part payment
			pays = []pay{{0, g.share(a1, i, saltPayAmount, 20, 80), false}}
		}
		// Later ones pay parts of what is left of the second item.
		rest := a2
		for q := 1; q < m; q++ {
			v := g.share(rest, i*16+q, saltPayAmount, 20, 50)
			pays = append(pays, pay{1, v, false})
			rest -= v
		}
	}
	reported := 0
	for _, p := range pays {
		if !p.opening {
			reported++
		}
	}
	r := 0
	for seq, p := range pays {
		row := paymentRow{debt: i, item: d.items[p.item].id, amount: p.amount, seq: seq}
		if p.opening {
			row.source = "BEFORE_HANDOVER"
			row.created = created
			row.transactionDate = day.AddDays(-1 - g.pick(i, saltPayDate, 14))
			if g.percent(i, saltBooked, 90) {
				row.bookedDate = ptr(row.transactionDate.AddDays(1 + g.pick(i, saltBooked+100, 2)))
			}
		} else {
			row.source = "REPORTED"
			// Reported payments come in order, spread over the window.
			slot := (lastPermille - 50) / reported
			row.created = at(50 + r*slot + g.pick(i*16+seq, saltPayTime, slot))
			row.transactionDate = dateOf(row.created).AddDays(-g.pick(i*16+seq, saltPayDate, 3))
			if row.transactionDate.Before(day) {
				row.transactionDate = day
			}
			r++
			d.updated = row.created
		}
		d.items[p.item].paid += p.amount
		d.paid += p.amount
		d.payments = append(d.payments, row)
	}
	if out == outcomeWithdrawn {
		w := at(800 + g.pick(i, saltWithdrawAt, 190))
		d.withdrawnAt = &w
		d.withdrawComment = ptr(withdrawComments[g.pick(i, saltComment, len(withdrawComments))])
		d.updated = w
	}
	return d
}
