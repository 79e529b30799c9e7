package targets

import "energy/schema/metric"

// deliveryChannels label the delivery series: each channel has its series from the start.
var deliveryChannels = []string{ChannelEmail, ChannelSMS}

var (
	notificationsSent = metric.CounterVec("energy_notifications_sent_total",
		"Target notifications delivered, by channel (EMAIL, SMS).", "channel", deliveryChannels...)
	notificationsFailed = metric.CounterVec("energy_notifications_failed_total",
		"Target notifications given up (FAILED), by channel.", "channel", deliveryChannels...)
	notificationRetries = metric.CounterVec("energy_notification_retries_total",
		"Failed delivery attempts that will be tried again after a backoff, by channel.", "channel", deliveryChannels...)
	outboxDepth = metric.Gauge("energy_notification_outbox_depth",
		"Target notifications waiting for delivery (PENDING).")
)
