package ledger_test

import (
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }
