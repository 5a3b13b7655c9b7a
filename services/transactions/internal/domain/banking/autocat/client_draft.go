package autocat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// RuleRequest is a decoded POST /categorization-rules body: the draft and
// what the request asks beyond it.
type RuleRequest struct {
	Draft RuleDraft
	// ApplyRetroactively asks that the new rule categorize the business's
	// uncategorized transactions it matches.
	ApplyRetroactively bool
}

// RulePatch is a decoded PATCH /categorization-rules/{id} body: the
// members present (null clears one) and their values.
type RulePatch struct {
	present map[string]bool
	draft   RuleDraft
}

// ruleMembers are the members of a rule body: the service's own
// (direction, counterparty, description, amount_min, amount_max,
// bank_account_id) and the client SDK's draft. Members in one group set
// the same condition: a body may hold only one of each group.
var ruleGroups = [][]string{
	{"name"}, {"category"}, {"external_id"}, {"suggestion_1"}, {"suggestion_2"}, {"suggestion_3"},
	{"direction", "bank_direction_filter"},
	{"counterparty", "business_name_filter"},
	{"description", "transaction_description_filter"},
	{"amount_min", "amount_min_filter"},
	{"amount_max", "amount_max_filter"},
	{"bank_account_id"}, {"client_name_filter"}, {"transaction_type_filter"}, {"counterparty_filter"},
	{"merchant_type_filter"}, {"mcc_filter"}, {"bank_transaction_type_filter"},
}

// createOnly are members of POST only (not of the PATCH draft).
var createOnly = []string{"apply_retroactively", "created_by_suggestion_id"}

// bankTransactionTypes are the SDK's closed bank_transaction_type_filter
// values.
var bankTransactionTypes = []string{"REVENUE", "LOAN_DISBURSEMENT", "REFUND_RECEIVED", "INCOMING_P2P_TRANSFER",
	"INTRA_ACCOUNT_TRANSFER_IN", "CHECK_WITHDRAWAL", "ATM_DEPOSIT", "BANK_DEPOSIT", "BANK_VERIFICATION_TRIAL_CREDIT",
	"REVERSAL_IN", "CREDIT_CARD_REWARD", "INTEREST_EARNED", "GOVERNMENT_OR_OTHER_GRANT", "TAX_REFUND", "PURCHASE",
	"REFUND_GIVEN", "OUTGOING_P2P_TRANSFER", "INTRA_ACCOUNT_TRANSFER_OUT", "CHECK_DEPOSIT", "ATM_WITHDRAWAL",
	"BANK_WITHDRAWAL", "BANKING_FEE", "PAYMENT_PROCESSING_FEE", "BANK_VERIFICATION_TRIAL_DEBIT", "REVERSAL_OUT",
	"LOAN_PAYMENT", "TAX_PAYMENT", "NOT_ENOUGH_INFORMATION"}

// DecodeRuleDraft reads the body of POST /categorization-rules (see
// DecodeRuleRequest) and returns its draft.
func DecodeRuleDraft(body []byte) (RuleDraft, error) {
	req, err := DecodeRuleRequest(body)
	return req.Draft, err
}

// DecodeRuleRequest reads the body of POST /categorization-rules in
// either form, or a mix of both:
//
//	the service's: {"name"?, "direction"?: CREDIT|DEBIT (or a synonym),
//	 "counterparty"?: {"match": CONTAINS|REGEX, "pattern"},
//	 "description"?: {"match", "pattern"}, "amount_min"?, "amount_max"?:
//	 cents, "bank_account_id"?: uuid, "category": {type: AccountId|
//	 StableName|Exclusion, ...}}
//	the client SDK's draft: {"name"?, "category"?, "suggestion_1..3"?
//	 (AccountIdentifier), "counterparty_filter"?: counterparty uuid,
//	 "business_name_filter"?, "client_name_filter"? (the counterparty's
//	 name contains), "transaction_description_filter"? (the description
//	 contains), "transaction_type_filter"? (the bank's kind, equal),
//	 "bank_direction_filter"?: MONEY_IN|MONEY_OUT, "amount_min_filter"?,
//	 "amount_max_filter"?: cents, "external_id"?, "apply_retroactively"?,
//	 "created_by_suggestion_id"?}
//
// Null is absent. Two members of one condition (direction and
// bank_direction_filter, say) are refused. merchant_type_filter,
// mcc_filter and bank_transaction_type_filter name facts imported
// transactions do not carry: a non-null one is refused rather than kept
// as a condition that never matches. Shape errors are a 400
// InvalidPayload (InvalidCategorizationRule) naming each member; the
// rules themselves are NewRule's.
func DecodeRuleRequest(body []byte) (RuleRequest, error) {
	members, fields, err := ruleMembers(body, true)
	if err != nil {
		return RuleRequest{}, err
	}
	var req RuleRequest
	req.Draft = decodeMembers(members, fields)
	if raw, ok := members["apply_retroactively"]; ok && !jsonraw.IsNull(raw) {
		if err := json.Unmarshal(raw, &req.ApplyRetroactively); err != nil {
			fields["apply_retroactively"] = "must be a boolean"
		}
	}
	if raw, ok := members["created_by_suggestion_id"]; ok && !jsonraw.IsNull(raw) {
		if id, ok := decodeUUID(raw); ok {
			req.Draft.CreatedBySuggestionID = &id
		} else {
			fields["created_by_suggestion_id"] = "must be a UUID"
		}
	}
	if len(fields) > 0 {
		return RuleRequest{}, apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(EnumInvalidRule)
	}
	return req, nil
}

// DecodeRulePatch reads the body of PATCH /categorization-rules/{id}: the
// members of DecodeRuleRequest less apply_retroactively and
// created_by_suggestion_id, each optional; a member present replaces its
// condition (null removes it), an absent one keeps it.
func DecodeRulePatch(body []byte) (RulePatch, error) {
	members, fields, err := ruleMembers(body, false)
	if err != nil {
		return RulePatch{}, err
	}
	p := RulePatch{present: map[string]bool{}, draft: decodeMembers(members, fields)}
	for k := range members {
		p.present[k] = true
	}
	if len(fields) > 0 {
		return RulePatch{}, apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(EnumInvalidRule)
	}
	return p, nil
}

// CounterpartyID is the counterparty the patch names, if it sets one.
func (p RulePatch) CounterpartyID() (*uuid.UUID, bool) {
	return p.draft.CounterpartyID, p.present["counterparty_filter"]
}

// Apply is base with the patch's members; the counterparty stays resolved
// only when the patch leaves it (the caller resolves a new one).
func (p RulePatch) Apply(base RuleDraft) RuleDraft {
	d := base
	set := func(group ...string) bool {
		for _, k := range group {
			if p.present[k] {
				return true
			}
		}
		return false
	}
	if set("name") {
		d.Name = p.draft.Name
	}
	if set("category") {
		d.Category = p.draft.Category
	}
	if set("external_id") {
		d.ExternalID = p.draft.ExternalID
	}
	for i := range d.Suggestions {
		if set(fmt.Sprintf("suggestion_%d", i+1)) {
			d.Suggestions[i] = p.draft.Suggestions[i]
		}
	}
	if set("direction", "bank_direction_filter") {
		d.Direction = p.draft.Direction
	}
	if set("counterparty", "business_name_filter") {
		d.Counterparty = p.draft.Counterparty
	}
	if set("description", "transaction_description_filter") {
		d.Description = p.draft.Description
	}
	if set("amount_min", "amount_min_filter") {
		d.AmountMin = p.draft.AmountMin
	}
	if set("amount_max", "amount_max_filter") {
		d.AmountMax = p.draft.AmountMax
	}
	if set("bank_account_id") {
		d.BankAccountID = p.draft.BankAccountID
	}
	if set("client_name_filter") {
		d.ClientName = p.draft.ClientName
	}
	if set("transaction_type_filter") {
		d.TransactionType = p.draft.TransactionType
	}
	if set("counterparty_filter") {
		d.CounterpartyID, d.CounterpartyRef = p.draft.CounterpartyID, nil
	}
	return d
}

// ruleMembers splits a body into its members, refusing unknown ones where
// they belong to the other verb and two members of one group.
func ruleMembers(body []byte, create bool) (map[string]json.RawMessage, map[string]string, error) {
	var members map[string]json.RawMessage
	if !jsonraw.IsObject(body) || json.Unmarshal(body, &members) != nil {
		return nil, nil, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"body": "must be a JSON rule object"}).WithEnum(EnumInvalidRule)
	}
	fields := map[string]string{}
	if !create {
		for _, k := range createOnly {
			if _, ok := members[k]; ok {
				fields[k] = "can only be given when the rule is created"
			}
		}
	}
	for _, g := range ruleGroups {
		var given []string
		for _, k := range g {
			if raw, ok := members[k]; ok && !jsonraw.IsNull(raw) {
				given = append(given, k)
			}
		}
		if len(given) > 1 {
			fields[given[1]] = "sets the same condition as " + given[0] + ": give one"
		}
	}
	return members, fields, nil
}

func decodeUUID(raw json.RawMessage) (uuid.UUID, bool) {
	s, ok := jsonraw.String(raw)
	if !ok || len(s) != 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil && id != uuid.Nil
}

// decodeMembers reads every member into a draft, naming shape errors in
// fields.
func decodeMembers(m map[string]json.RawMessage, fields map[string]string) RuleDraft {
	var d RuleDraft
	given := func(k string) (json.RawMessage, bool) {
		raw, ok := m[k]
		return raw, ok && !jsonraw.IsNull(raw)
	}
	text := func(k string) *string {
		raw, ok := given(k)
		if !ok {
			return nil
		}
		s, isString := jsonraw.String(raw)
		if !isString {
			fields[k] = "must be a string"
			return nil
		}
		return &s
	}
	d.Name = text("name")
	if s := text("external_id"); s != nil {
		t := strings.TrimSpace(*s)
		if t == "" || len(t) > banking.MaxExternalIDLength {
			fields["external_id"] = fmt.Sprintf("must be 1 to %d characters", banking.MaxExternalIDLength)
		} else {
			d.ExternalID = &t
		}
	}
	classification := func(k string, accountOnly bool) *banking.Classification {
		raw, ok := given(k)
		if !ok {
			return nil
		}
		c, err := banking.DecodeClassification(raw, k)
		if err != nil {
			mergeFields(fields, err)
			return nil
		}
		if accountOnly && c.IsExclusion() {
			fields[k] = "must name an account (AccountId or StableName)"
			return nil
		}
		return &c
	}
	if c := classification("category", false); c != nil {
		d.Category = *c
	}
	for i := range d.Suggestions {
		d.Suggestions[i] = classification(fmt.Sprintf("suggestion_%d", i+1), true)
	}
	// Direction: the service's spellings, or the SDK's MONEY_IN/MONEY_OUT.
	if s := text("direction"); s != nil {
		if dir, ok := banking.ParseDirection(*s); ok {
			d.Direction = &dir
		} else {
			fields["direction"] = "must be CREDIT or DEBIT"
		}
	}
	if s := text("bank_direction_filter"); s != nil {
		switch *s {
		case "MONEY_IN":
			dir := banking.Credit
			d.Direction = &dir
		case "MONEY_OUT":
			dir := banking.Debit
			d.Direction = &dir
		default:
			fields["bank_direction_filter"] = "must be MONEY_IN or MONEY_OUT"
		}
	}
	textCond := func(k string) *TextDraft {
		raw, ok := given(k)
		if !ok {
			return nil
		}
		var w struct {
			Match   string `json:"match"`
			Pattern string `json:"pattern"`
		}
		if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &w) != nil {
			fields[k] = "must be an object {match: CONTAINS|REGEX, pattern}"
			return nil
		}
		return &TextDraft{Match: MatchMode(w.Match), Pattern: w.Pattern}
	}
	contains := func(k string) *TextDraft {
		if s := text(k); s != nil {
			return &TextDraft{Match: Contains, Pattern: *s}
		}
		return nil
	}
	d.Counterparty = textCond("counterparty")
	if c := contains("business_name_filter"); c != nil {
		d.Counterparty = c
	}
	d.Description = textCond("description")
	if c := contains("transaction_description_filter"); c != nil {
		d.Description = c
	}
	d.ClientName = contains("client_name_filter")
	d.TransactionType = text("transaction_type_filter")
	for _, a := range []struct {
		field string
		dst   **money.Cents
	}{{"amount_min", &d.AmountMin}, {"amount_min_filter", &d.AmountMin}, {"amount_max", &d.AmountMax}, {"amount_max_filter", &d.AmountMax}} {
		raw, ok := given(a.field)
		if !ok {
			continue
		}
		c, err := money.ParseJSONCents(raw)
		if err != nil {
			fields[a.field] = "must be a whole number of cents"
			continue
		}
		*a.dst = &c
	}
	if raw, ok := given("bank_account_id"); ok {
		if id, ok := decodeUUID(raw); ok {
			d.BankAccountID = &id
		} else {
			fields["bank_account_id"] = "must be a UUID"
		}
	}
	if raw, ok := given("counterparty_filter"); ok {
		if id, ok := decodeUUID(raw); ok {
			d.CounterpartyID = &id
		} else {
			fields["counterparty_filter"] = "must be a counterparty's UUID"
		}
	}
	if s := text("bank_transaction_type_filter"); s != nil {
		if !slices.Contains(bankTransactionTypes, *s) {
			fields["bank_transaction_type_filter"] = "must be one of " + strings.Join(bankTransactionTypes, ", ")
		} else {
			fields["bank_transaction_type_filter"] = "is not supported: imported transactions carry no such classification"
		}
	}
	for _, k := range []string{"merchant_type_filter", "mcc_filter"} {
		if text(k) != nil {
			fields[k] = "is not supported: imported transactions carry no merchant category"
		}
	}
	return d
}

func mergeFields(fields map[string]string, err error) {
	if ae := apperr.From(err); ae != nil {
		if fs, ok := ae.Meta["fields"].(map[string]string); ok {
			for k, v := range fs {
				fields[k] = v
			}
			return
		}
		if len(fields) == 0 {
			fields["body"] = ae.Message
		}
	}
}
