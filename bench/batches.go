package bench

import (
	"context"
	"time"
)

// Batch is the readings of sites [First, Last), as GenerateBatches hands them out.
type Batch struct {
	First, Last int
	Curve       *CurveColumns
	Indexes     *IndexColumns
	free        chan<- *Batch
}

// Release gives the batch's columns back to GenerateBatches for a later batch. A loader then
// keeps a few batches' worth of memory: fresh memory for each batch (about 150 MB for 50 sites)
// cost more in first-touch page faults than generating its rows.
func (b *Batch) Release() {
	select {
	case b.free <- b:
	default: // never full: free holds every batch ever made
	}
}

// GenerateBatches generates the data set's readings SitesPerBatch sites at a time, in site
// order, sends them on out and closes it. It makes the columns of at most buffers batches and
// then waits for released ones: buffers must exceed what the consumers hold at once (those
// they load and the one being handed over).
func GenerateBatches(ctx context.Context, s Spec, buffers int, out chan<- *Batch) error {
	defer close(out)
	loc, err := time.LoadLocation(Timezone)
	if err != nil {
		return err
	}
	free := make(chan *Batch, buffers)
	made := 0
	for first := 0; first < s.Sites; first += SitesPerBatch {
		var b *Batch
		select {
		case b = <-free:
		default:
			if made < buffers {
				b = &Batch{Curve: new(CurveColumns), Indexes: new(IndexColumns), free: free}
				made++
				break
			}
			select {
			case b = <-free:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		b.First, b.Last = first, min(first+SitesPerBatch, s.Sites)
		generateInto(b.First, b.Last, s.Year, loc, b.Curve, b.Indexes)
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
