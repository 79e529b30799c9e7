package consumption

// amount is a sum under a name: the energy or cost of a tariff heading, the standing charge of
// a component.
type amount struct {
	name  string
	value float64
}

// addAmount adds v to the sum of name, keeping sums in name order. An item has a handful of
// headings and components: a small slice is cheaper than a map, and its fixed order makes
// sums over it deterministic.
func addAmount(sums []amount, name string, v float64) []amount {
	for i := range sums {
		if sums[i].name == name {
			sums[i].value += v
			return sums
		}
		if sums[i].name > name {
			sums = append(sums, amount{})
			copy(sums[i+1:], sums[i:])
			sums[i] = amount{name, v}
			return sums
		}
	}
	return append(sums, amount{name, v})
}

// holds reports whether sums has a sum under name.
func holds(sums []amount, name string) bool {
	for _, a := range sums {
		if a.name == name {
			return true
		}
	}
	return false
}
