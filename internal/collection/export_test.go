package collection

// LuhnValid exposes luhnValid to the external tests.
var LuhnValid = luhnValid
