package consumption

import (
	"math"
	"time"
)

// Load-curve energy is summed as whole watt-seconds (W × s: points and step boundaries fall on
// whole seconds, so the product is an exact integer) per tariff heading, and turned into Wh once
// per heading. Integer sums do not depend on the order of addition: the energy ClickHouse sums
// per interval and the energy of pieces cut in Go are the same to the last bit, and points of
// 10 minutes add up exactly where W × 1/6 h would not. Cost stays priced piece by piece, in the
// order of the pieces, as it always was: its float sum rounds to 0.0001 EUR as before.

// wattSeconds is the energy in W·s of watts over d. A rest under a second (a boundary that is
// not on a whole second) rounds to the W·s, far below the answer's 0.001 Wh.
func wattSeconds(watts int64, d time.Duration) int64 {
	ws := watts * int64(d/time.Second)
	if rest := d % time.Second; rest != 0 {
		ws += int64(math.Round(float64(watts) * rest.Seconds()))
	}
	return ws
}

// curveEnergy is the load-curve energy of one tariff heading of a step, in W·s.
type curveEnergy struct {
	heading string
	ws      int64
}

// addCurvePiece adds a load-curve piece of ws W·s under heading, lying in the local day day
// (nil when the answer is not priced), to the step's sums: its energy to the heading's W·s, its
// cost at the day's price of the heading (none when the heading has no price that day).
func (b *itemBuilder) addCurvePiece(s *stepSums, heading string, day *localDay, ws int64) {
	if heading == missingColourHeading { // in the total, under no heading, not priced
		s.uncoloured += ws
		s.missingColour = true
		return
	}
	i := 0
	for i < len(s.curve) && s.curve[i].heading != heading {
		i++
	}
	if i == len(s.curve) {
		s.curve = append(s.curve, curveEnergy{heading: heading})
	}
	s.curve[i].ws += ws
	if day == nil {
		return
	}
	if price, ok := day.prices[heading]; ok {
		s.costs = addAmount(s.costs, heading, float64(ws)/3600/1000*price)
	}
}

// addCurveEnergy adds the step's load-curve W·s to its Wh by heading, once per heading.
func addCurveEnergy(s *stepSums) {
	for _, c := range s.curve {
		s.byHeading = addAmount(s.byHeading, c.heading, float64(c.ws)/3600)
	}
}
