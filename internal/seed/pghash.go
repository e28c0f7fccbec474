package seed

import "math/bits"

// The benchmark anchor's data script (bench/data.sql) derives every value from
// pg_temp.h(n, salt) = hashint8extended(n, salt) & 9223372036854775807,
// PostgreSQL's extended hash of a bigint. pgHash is that function, bit for
// bit, so that the seed can follow the benchmark where the benchmark's
// answers must be ours too (which debts are open, benchOpen).

// pgHashInt8Extended is PostgreSQL's hashint8extended(val, seed)
// (src/backend/access/hash/hashfunc.c): the bigint folded to 32 bits, then
// hash_uint32_extended (src/common/hashfn.c, Bob Jenkins' lookup3 mix and
// final).
func pgHashInt8Extended(val int64, seed uint64) uint64 {
	lo, hi := uint32(val), uint32(uint64(val)>>32)
	if val >= 0 {
		lo ^= hi
	} else {
		lo ^= ^hi
	}
	return pgHashUint32Extended(lo, seed)
}

// pgHashUint32Extended is hash_uint32_extended(k, seed).
func pgHashUint32Extended(k uint32, seed uint64) uint64 {
	a := uint32(0x9e3779b9) + 4 + 3923095
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = lookup3Mix(a, b, c)
	}
	a += k
	_, b, c = lookup3Final(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

func lookup3Mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func lookup3Final(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}

// pgHash is data.sql's pg_temp.h(n, salt): a non-negative 63-bit hash.
func pgHash(n, salt int64) int64 {
	return int64(pgHashInt8Extended(n, uint64(salt)) & (1<<63 - 1))
}

// benchOpenSalt is the salt of data.sql's main_status: ms = h(i, 22) % 100.
const benchOpenSalt = 22

// benchOpen reports whether debt i is open (in collection) in the
// benchmark's data: main_status = 2, which data.sql gives when
// 25 <= h(i, 22) % 100 < 60 (35% of the debts).
func benchOpen(i int) bool {
	ms := pgHash(int64(i), benchOpenSalt) % 100
	return 25 <= ms && ms < 60
}
