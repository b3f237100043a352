package selector

// PlainUTF8 exposes plainUTF8 (whether Parse takes its no-copy path) to the tests.
var PlainUTF8 = plainUTF8
