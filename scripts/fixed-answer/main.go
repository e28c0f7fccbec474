// Command fixed-answer is the ceiling of any GraphQL server on the bench
// machine (docs/performance.md, "The ceiling of Q1"): it answers every POST
// with the bytes of one file, after reading the request's body, through
// the same HTTP stack as DebtQL (net/http). It does no work of its own, so
// the CPU that the load generator, the kernel and it spend a request is
// what any server's answer of that size costs at least, before its
// database's work. scripts/bench.sh ceiling runs it with Q1's answer.
//
// With -statements it is the ceiling of a server on DebtQL's driver: before
// each answer it sends the statements of the file (one a line, as the floor's
// pgbench script has them) through pgx/v5, prepared and cached as DebtQL's
// statement cache sends them, and reads every row's bytes without decoding
// them. No Go server that sends those statements through pgx one after the
// other, as the floor's pgbench does, does less.
//
//	fixed-answer -addr 127.0.0.1:8090 -body answer.json
//	fixed-answer -addr 127.0.0.1:8091 -body answer.json -statements q1_floor.sql -database-url postgres://...
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "address to listen on (loopback)")
	bodyFile := flag.String("body", "", "the file whose bytes every answer carries")
	stmtFile := flag.String("statements", "", "a file of statements, one a line, sent before each answer")
	dbURL := flag.String("database-url", "", "the database of -statements")
	conns := flag.Int("conns", 16, "the pool's connections for -statements")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil || len(body) == 0 {
		fail(2, "-body: a file with the answer's bytes is required (%v)", err)
	}
	var pool *pgxpool.Pool
	var stmts []string
	if *stmtFile != "" {
		if stmts, err = readStatements(*stmtFile); err != nil {
			fail(2, "-statements: %v", err)
		}
		if *dbURL == "" || *conns < 1 {
			fail(2, "-statements needs -database-url and -conns of at least 1")
		}
		cfg, err := pgxpool.ParseConfig(*dbURL)
		if err != nil {
			fail(2, "-database-url: %v", err)
		}
		cfg.MaxConns, cfg.MinConns = int32(*conns), int32(*conns)
		if pool, err = pgxpool.NewWithConfig(context.Background(), cfg); err != nil {
			fail(1, "%v", err)
		}
		// A statement that fails here would fail every answer: say so now.
		if err := run(context.Background(), pool, stmts); err != nil {
			fail(1, "%v", err)
		}
	}
	length := strconv.Itoa(len(body))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the request as a server must before it can answer.
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if pool != nil {
			if err := run(r.Context(), pool, stmts); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fail(1, "%v", err)
	}
}

// run sends the statements one after the other on one connection of the
// pool and reads each row's bytes, undecoded.
func run(ctx context.Context, pool *pgxpool.Pool, stmts []string) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, s := range stmts {
		rows, err := conn.Query(ctx, s)
		if err != nil {
			return err
		}
		for rows.Next() {
			_ = rows.RawValues()
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%w: %.80s", err, s)
		}
	}
	return nil
}

// readStatements reads a pgbench script of one statement a line, without
// its meta-commands and the statements' closing semicolons.
func readStatements(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var stmts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, `\`) || strings.HasPrefix(line, "--") {
			continue
		}
		stmts = append(stmts, strings.TrimSuffix(line, ";"))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(stmts) == 0 {
		return nil, fmt.Errorf("%s has no statement", path)
	}
	return stmts, nil
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fixed-answer: "+format+"\n", args...)
	os.Exit(code)
}
