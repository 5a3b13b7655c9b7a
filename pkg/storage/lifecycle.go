package storage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// ExpiryRuler is a store that can expire objects by itself, without a
// running service: an S3 bucket's lifecycle rules.
type ExpiryRuler interface {
	// EnsureExpiry makes the store delete the objects under prefix days
	// days after they were written, with a rule named id, keeping every
	// other rule the store has.
	EnsureExpiry(ctx context.Context, id, prefix string, days int32) error
}

var _ ExpiryRuler = (*S3Store)(nil)

// lifecycleAttempts bounds EnsureExpiry's read-merge-write rounds: two
// services writing their rules at the same moment can each replace the
// other's, which the read after the write finds.
const lifecycleAttempts = 5

// EnsureExpiry implements ExpiryRuler with the bucket's lifecycle
// configuration: it reads the rules, replaces or adds the rule id (an
// expiration after days for the keys under prefix), writes them back only
// when something changed, and reads them again to check that a concurrent
// writer did not drop it. The credentials need s3:GetLifecycleConfiguration
// and s3:PutLifecycleConfiguration.
func (s *S3Store) EnsureExpiry(ctx context.Context, id, prefix string, days int32) error {
	if id == "" || prefix == "" || days < 1 {
		return fmt.Errorf("storage: expiry rule %q for prefix %q after %d days: id, prefix and at least a day are required", id, prefix, days)
	}
	want := types.LifecycleRule{
		ID:         aws.String(id),
		Status:     types.ExpirationStatusEnabled,
		Filter:     &types.LifecycleRuleFilter{Prefix: aws.String(prefix)},
		Expiration: &types.LifecycleExpiration{Days: aws.Int32(days)},
	}
	for attempt := range lifecycleAttempts {
		rules, err := s.lifecycleRules(ctx)
		if err != nil {
			return err
		}
		merged, changed := mergeRule(rules, want)
		if !changed {
			return nil
		}
		if attempt > 0 {
			// Another writer replaced the rules since: let it finish.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(100+rand.IntN(400)) * time.Millisecond):
			}
		}
		if _, err := s.client.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
			Bucket:                 aws.String(s.bucket),
			LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: merged},
		}); err != nil {
			return fmt.Errorf("storage: put the lifecycle rules of bucket %s: %w", s.bucket, err)
		}
	}
	return fmt.Errorf("storage: the lifecycle rule %s of bucket %s was replaced by another writer %d times", id, s.bucket, lifecycleAttempts)
}

// lifecycleRules are the bucket's lifecycle rules (none when it has no
// configuration).
func (s *S3Store) lifecycleRules(ctx context.Context) ([]types.LifecycleRule, error) {
	out, err := s.client.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String(s.bucket)})
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchLifecycleConfiguration" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storage: read the lifecycle rules of bucket %s: %w", s.bucket, err)
	}
	return out.Rules, nil
}

// mergeRule is rules with want in place of the rule of the same ID (or
// added), and whether that changed anything.
func mergeRule(rules []types.LifecycleRule, want types.LifecycleRule) ([]types.LifecycleRule, bool) {
	out := make([]types.LifecycleRule, 0, len(rules)+1)
	found, changed := false, false
	for _, r := range rules {
		if aws.ToString(r.ID) != aws.ToString(want.ID) {
			out = append(out, r)
			continue
		}
		if found {
			changed = true // a duplicate ID: drop it
			continue
		}
		found = true
		if !sameExpiry(r, want) {
			changed = true
			r = want
		}
		out = append(out, r)
	}
	if !found {
		out, changed = append(out, want), true
	}
	return out, changed
}

func sameExpiry(a, b types.LifecycleRule) bool {
	prefix := func(r types.LifecycleRule) string {
		if r.Filter == nil || r.Filter.And != nil || r.Filter.Tag != nil ||
			r.Filter.ObjectSizeGreaterThan != nil || r.Filter.ObjectSizeLessThan != nil {
			return "\x00" // a filter other than a plain prefix
		}
		return aws.ToString(r.Filter.Prefix)
	}
	days := func(r types.LifecycleRule) int32 {
		if r.Expiration == nil || r.Expiration.Date != nil {
			return -1
		}
		return aws.ToInt32(r.Expiration.Days)
	}
	return a.Status == b.Status && prefix(a) == prefix(b) && days(a) == days(b)
}
