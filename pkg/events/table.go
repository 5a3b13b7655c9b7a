package events

import (
	"errors"
	"fmt"
	"slices"
)

// TopicUse is one topic's producer and consumers, by service name.
type TopicUse struct {
	Topic     string
	Producer  string
	Consumers []string
}

// Table is who produces and who consumes each topic of the suite: the one
// source the kit checks every service against when it starts (CheckUse),
// and the chart's Kafka users' ACLs are checked against (tools/chartcheck),
// so a service never needs a right its user lacks. Each consumer also
// writes the topic's dead letters (DLQ).
var Table = []TopicUse{
	{TopicBusiness, "auth-tokens", []string{"transactions", "customers-invoices", "bills-tags", "reports", "mileage", "webhooks"}},
	{TopicLedger, "transactions", []string{"bills-tags", "reports", "webhooks"}},
	{TopicTransactions, "transactions", []string{"bills-tags", "reports", "webhooks"}},
	{TopicAccounts, "transactions", []string{"customers-invoices", "bills-tags", "webhooks"}},
	{TopicInvoicing, "customers-invoices", []string{"transactions", "bills-tags", "reports", "webhooks"}},
	{TopicBills, "bills-tags", []string{"transactions", "bills-tags", "reports", "webhooks"}},
	{TopicMileage, "mileage", []string{"webhooks"}},
}

// CheckUse reports every topic of Table that service produces or consumes
// without the table saying so. Topics outside the table, and services it
// does not name (a test's own), are not checked.
func CheckUse(service string, produces, consumes []string) error {
	if !slices.ContainsFunc(Table, func(u TopicUse) bool { return u.Producer == service || slices.Contains(u.Consumers, service) }) {
		return nil
	}
	var errs []error
	for _, u := range Table {
		if slices.Contains(produces, u.Topic) && u.Producer != service {
			errs = append(errs, fmt.Errorf("%s produces %s, whose producer is %s (events.Table)", service, u.Topic, u.Producer))
		}
		if slices.Contains(consumes, u.Topic) && !slices.Contains(u.Consumers, service) {
			errs = append(errs, fmt.Errorf("%s consumes %s without being among its consumers (events.Table)", service, u.Topic))
		}
	}
	return errors.Join(errs...)
}
