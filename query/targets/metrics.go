package targets

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	notificationsSent = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_notifications_sent_total",
		Help: "Target notifications delivered, by channel (EMAIL, SMS).",
	}, []string{"channel"})
	notificationsFailed = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_notifications_failed_total",
		Help: "Target notifications given up (FAILED), by channel.",
	}, []string{"channel"})
	notificationRetries = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "energy_notification_retries_total",
		Help: "Failed delivery attempts that will be tried again after a backoff, by channel.",
	}, []string{"channel"})
	outboxDepth = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "energy_notification_outbox_depth",
		Help: "Target notifications waiting for delivery (PENDING).",
	})
)

// Each channel's series exists from the start at 0, so that a dashboard shows 0 rather than
// no data before the first notification.
func init() {
	for _, channel := range []string{ChannelEmail, ChannelSMS} {
		notificationsSent.WithLabelValues(channel)
		notificationsFailed.WithLabelValues(channel)
		notificationRetries.WithLabelValues(channel)
	}
}
