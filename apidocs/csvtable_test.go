package apidocs

import (
	"bytes"
	"testing"
	"time"
)

// The writer on a list whose items differ: quoting, the union of map keys in the header,
// empty cells for what an item lacks, offsets and decimal points kept.
func TestCSVTableFlattensAnyList(t *testing.T) {
	type inner struct {
		Total *float64           `json:"total" csv:"energy"`
		By    map[string]float64 `json:"byTariffHeading" csv:"energy"`
	}
	type item struct {
		At    time.Time `json:"at"`
		Name  string    `json:"name"`
		Meter inner     `json:"meter"`
		Cost  *struct {
			Total float64 `json:"total"`
		} `json:"cost,omitempty"`
		Flags []string `json:"flags"`
		Skip  string   `json:"-"`
	}
	paris := time.FixedZone("", 2*3600)
	total := 1234.5
	items := []item{
		{At: time.Date(2024, 3, 31, 3, 0, 0, 0, paris), Name: `archive "May", part 1`, Meter: inner{Total: &total, By: map[string]float64{"HP": 1000, "HC": 234.5}},
			Cost: &struct {
				Total float64 `json:"total"`
			}{Total: 1e21}, Flags: []string{"MISSING_DATA", "METER_CHANGE"}},
		{At: time.Date(2024, 3, 31, 4, 0, 0, 0, paris), Name: "plain", Meter: inner{By: map[string]float64{"BASE": 0.000001}}},
	}
	var b bytes.Buffer
	if err := writeCSVTable(&b, items); err != nil {
		t.Fatal(err)
	}
	want := "at,name,energy,energy_BASE,energy_HC,energy_HP,cost_total,flags\r\n" +
		`2024-03-31T03:00:00+02:00,"archive ""May"", part 1",1234.5,,234.5,1000,1000000000000000000000,MISSING_DATA;METER_CHANGE` + "\r\n" +
		"2024-03-31T04:00:00+02:00,plain,,0.000001,,,,\r\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	if err := writeCSVTable(&b, struct{}{}); err == nil {
		t.Error("a struct is not a list: want an error")
	}
	b.Reset()
	if err := writeCSVTable(&b, []item{}); err != nil || b.String() != "at,name,energy,cost_total,flags\r\n" {
		t.Errorf("empty list: %q %v, want the header alone", b.String(), err)
	}
}
