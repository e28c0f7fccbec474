package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports whether err says that the database could not be
// reached or went away, rather than that the request was wrong: no
// connection could be made (refused, reset, a server starting up or
// shutting down, too many connections), or a connection broke mid-way;
// or the database rolled the transaction back to break a deadlock (two
// operations with several hand-overs each, taking overlapping locks in
// opposite orders), which the same request sent again can pass.
// The API answers these 503 (try again), not 500.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin shutdown, crash shutdown, cannot connect now
			return true
		case pe.Code == "53300": // too many connections
			return true
		case pe.Code == "40P01": // deadlock detected: the transaction was rolled back, a retry can pass
			return true
		}
		return false
	}
	var (
		connectErr *pgconn.ConnectError
		netErr     net.Error
	)
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr):
		return true
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone):
		return true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case pgconn.SafeToRetry(err): // failed before anything reached the server, e.g. a closed connection
		return true
	}
	return false
}
