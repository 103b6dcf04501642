package format

import "testing"

// A contract may name a Protobuf field by its JSON name or its declared
// one; a Protobuf finding's pointer uses the declared name. Reads takes
// them for one field, so that the safety nets of the consumer-aware gate
// (a whole pair's finding at a read path reaches its readers) hold for a
// contract written in the JSON form: a oneof-merged break at /iban_code
// was not counted for a consumer reading /ibanCode.
func TestReadsProtobufJSONNames(t *testing.T) {
	for _, tc := range []struct {
		fields  []string
		pointer string
		want    bool
	}{
		{[]string{"/ibanCode"}, "/iban_code", true},
		{[]string{"/iban_code"}, "/ibanCode", true},
		{[]string{"/total/currencyCode"}, "/total/currency_code", true},
		{[]string{"/byShop/s1/qty"}, "/by_shop", true},
		{[]string{"/ibanCode"}, "/card_no", false},
		{[]string{"/iban"}, "/iban_code", false},
		{[]string{"/ibancode"}, "/iban_code", false},
	} {
		if got := NewFields(tc.fields).Reads(tc.pointer); got != tc.want {
			t.Errorf("%v reads %s = %v, want %v", tc.fields, tc.pointer, got, tc.want)
		}
	}
}
