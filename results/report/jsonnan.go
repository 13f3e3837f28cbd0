package report

import (
	"encoding/json"
	"math"
)

// num is a float that encodes NaN and ±Inf as JSON null.
type num float64

// MarshalJSON implements json.Marshaler.
func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON implements json.Unmarshaler (null = NaN).
func (n *num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = num(math.NaN())
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*n = num(f)
	return err
}

// MarshalJSON writes missing values (NaN) as null.
func (s Stat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N      int `json:"n"`
		Mean   num `json:"mean"`
		Std    num `json:"std"`
		CILow  num `json:"ci_low"`
		CIHigh num `json:"ci_high"`
	}{s.N, num(s.Mean), num(s.Std), num(s.CILow), num(s.CIHigh)})
}

// MarshalJSON writes missing values (NaN) as null.
func (p PairedStat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N        int `json:"n"`
		MeanA    num `json:"mean_a"`
		MeanB    num `json:"mean_b"`
		MeanDiff num `json:"mean_diff"`
		SDDiff   num `json:"sd_diff"`
		CILow    num `json:"ci_low"`
		CIHigh   num `json:"ci_high"`
		Dz       num `json:"d_z"`
	}{p.N, num(p.MeanA), num(p.MeanB), num(p.MeanDiff), num(p.SDDiff), num(p.CILow), num(p.CIHigh), num(p.Dz)})
}

// MarshalJSON writes missing values (NaN) as null.
func (w WinRate) MarshalJSON() ([]byte, error) {
	type plain WinRate
	return json.Marshal(struct {
		plain
		CILow  num `json:"ci_low"`
		CIHigh num `json:"ci_high"`
	}{plain(w), num(w.CILow), num(w.CIHigh)})
}
