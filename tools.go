//go:build tools

package tools

import (
	_ "entgo.io/contrib/entgql"
	_ "entgo.io/ent/cmd/ent"
	_ "github.com/99designs/gqlgen"
)
