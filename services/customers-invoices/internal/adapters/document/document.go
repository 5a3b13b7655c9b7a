// Package document renders an invoice for people: an HTML page
// (html/template, every value escaped) and a PDF (github.com/go-pdf/fpdf
// with its core Helvetica font in the cp1252 encoding, so the text can be
// extracted and accented Latin letters print as themselves; a character
// cp1252 lacks prints as "?"). Both show the same figures, built once
// (view): the business, the customer, the lines (description, quantity,
// unit price, amount, with their discounts and taxes), the additional
// taxes and discount, subtotal, total, payments, refunds, write-offs and
// balance due, and the memo and payment instructions.
package document

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// Renderer implements app.DocumentRenderer.
type Renderer struct{}

var _ app.DocumentRenderer = Renderer{}

// row is a label and an amount of the totals block.
type row struct {
	Label, Value string
	Strong       bool
}

// line is an invoice line as shown.
type line struct {
	Description, Quantity, UnitPrice, Amount string
	// Notes are the line's discount and taxes ("Discount -$1.00").
	Notes []string
}

// view is what both renderings show, every amount formatted.
type view struct {
	Title, Number, Status                  string
	Business                               string
	Customer                               []string
	Sent, Due                              string
	Lines                                  []line
	Totals                                 []row
	Settlements                            []row // payments, refunds, write-offs
	BalanceDue, Total                      string
	Memo, Instructions, ReferenceNumber    string
	PaymentMethods                         string
	ShowSent, ShowDue, Voided, Draft, Paid bool
}

// Cents formats c as dollars: "$1,234.56", "-$0.50".
func Cents(c money.Cents) string {
	neg := c < 0
	v := int64(c)
	if neg {
		v = -v
	}
	whole := fmt.Sprintf("%d", v/100)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	s := fmt.Sprintf("$%s.%02d", b.String(), v%100)
	if neg {
		return "-" + s
	}
	return s
}

func day(t time.Time) string { return t.UTC().Format("January 2, 2006") }

func text(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func taxLabel(t invoice.SalesTax) string {
	switch {
	case t.TaxName != "":
		return "Tax " + t.TaxName
	case t.Account != nil && t.Account.StableName != "":
		return "Tax " + t.Account.StableName
	}
	return "Sales tax"
}

// newView builds the view of d.
func newView(d app.InvoiceDocument) view {
	inv := d.Invoice
	v := view{Title: "Invoice", Number: text(inv.InvoiceNumber), Status: string(inv.Status), Business: d.Business.LegalName,
		Memo: text(inv.Memo), Instructions: text(inv.CustomPaymentInstructions), ReferenceNumber: text(inv.ReferenceNumber),
		Voided: inv.VoidedAt != nil, Draft: inv.IsDraft, Paid: inv.Status == invoice.Paid}
	if v.Business == "" {
		v.Business = "Business " + d.Business.ID.String()
	}
	if !inv.IsDraft {
		v.Sent, v.ShowSent = day(inv.SentAt), true
	}
	if inv.DueAt != nil {
		v.Due, v.ShowDue = day(*inv.DueAt), true
	}
	if c := inv.Customer; c != nil {
		for _, s := range []string{c.DisplayName(), text(c.Email), text(c.AddressString), text(c.OfficePhone)} {
			if s != "" {
				v.Customer = append(v.Customer, s)
			}
		}
	}
	for _, l := range inv.Lines {
		desc := text(l.Description)
		if p := text(l.Product); p != "" && desc == "" {
			desc = p
		} else if p != "" && p != desc {
			desc = p + " - " + desc
		}
		ln := line{Description: desc, Quantity: l.Quantity.String(), UnitPrice: Cents(l.UnitPrice), Amount: Cents(l.Subtotal)}
		if l.DiscountAmount > 0 {
			ln.Notes = append(ln.Notes, "Discount "+Cents(-l.DiscountAmount))
		}
		for _, t := range l.SalesTaxes {
			if t.Amount > 0 {
				ln.Notes = append(ln.Notes, taxLabel(t)+" "+Cents(t.Amount))
			}
		}
		v.Lines = append(v.Lines, ln)
	}
	t := inv.Totals
	v.Totals = append(v.Totals, row{Label: "Subtotal", Value: Cents(t.Subtotal)})
	if t.LineDiscounts > 0 {
		v.Totals = append(v.Totals, row{Label: "Line discounts", Value: Cents(-t.LineDiscounts)})
	}
	if t.AdditionalDiscount > 0 {
		v.Totals = append(v.Totals, row{Label: "Discount", Value: Cents(-t.AdditionalDiscount)})
	}
	if t.LineTaxes > 0 {
		v.Totals = append(v.Totals, row{Label: "Line taxes", Value: Cents(t.LineTaxes)})
	}
	for _, tx := range inv.AdditionalSalesTaxes {
		if tx.Amount > 0 {
			v.Totals = append(v.Totals, row{Label: taxLabel(tx), Value: Cents(tx.Amount)})
		}
	}
	if t.Tips > 0 {
		v.Totals = append(v.Totals, row{Label: "Tips", Value: Cents(t.Tips)})
	}
	v.Total = Cents(t.Total)
	v.Totals = append(v.Totals, row{Label: "Total", Value: v.Total, Strong: true})
	for _, al := range inv.Allocations {
		v.Settlements = append(v.Settlements, row{Label: "Payment " + day(al.PaidAt) + " (" + string(al.Method) + ")", Value: Cents(-al.Amount)})
	}
	for _, w := range inv.WriteOffs {
		if w.VoidedAt == nil {
			v.Settlements = append(v.Settlements, row{Label: "Written off " + day(w.WriteOffAt), Value: Cents(-w.Amount)})
		}
	}
	for _, r := range inv.LiveRefunds() {
		v.Settlements = append(v.Settlements, row{Label: "Refund " + day(r.CompletedAt) + " (" + string(r.Method) + ")", Value: Cents(r.Amount)})
	}
	balance := inv.Outstanding()
	if inv.IsDraft {
		balance = t.Total // a draft shows what it will ask for
	}
	v.BalanceDue = Cents(balance)
	var methods []string
	for _, m := range inv.PaymentMethods {
		methods = append(methods, strings.ReplaceAll(string(m), "_", " "))
	}
	v.PaymentMethods = strings.Join(methods, ", ")
	return v
}

//go:embed invoice.html.tmpl
var pageSource string

var page = template.Must(template.New("invoice").Parse(pageSource))

// HTML implements app.DocumentRenderer.
func (Renderer) HTML(d app.InvoiceDocument) ([]byte, error) {
	var b bytes.Buffer
	if err := page.Execute(&b, newView(d)); err != nil {
		return nil, fmt.Errorf("render invoice page: %w", err)
	}
	return b.Bytes(), nil
}

// PDF implements app.DocumentRenderer: an A4/Letter-agnostic page (Letter),
// Helvetica, with the same content as the page.
func (Renderer) PDF(d app.InvoiceDocument) ([]byte, error) {
	v := newView(d)
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCreationDate(d.Invoice.UpdatedAt)
	pdf.SetModificationDate(d.Invoice.UpdatedAt)
	pdf.SetTitle(v.Title+" "+v.Number, true)
	pdf.SetCreator("acct customers-invoices", true)
	tr := pdf.UnicodeTranslatorFromDescriptor("") // cp1252
	pdf.SetMargins(18, 18, 18)
	pdf.SetAutoPageBreak(true, 18)
	pdf.AddPage()
	const width = 179.9 // Letter 215.9 − 2 × 18
	pdf.SetFont("Helvetica", "B", 18)
	title := v.Title
	if v.Number != "" {
		title += " " + v.Number
	}
	pdf.CellFormat(width/2, 9, tr(title), "", 0, "L", false, 0, "")
	pdf.SetFont("Helvetica", "B", 12)
	pdf.CellFormat(width/2, 9, tr(v.Business), "", 1, "R", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	status := "Status: " + v.Status
	pdf.CellFormat(width, 6, tr(status), "", 1, "L", false, 0, "")
	if v.ShowSent {
		pdf.CellFormat(width, 5, tr("Sent: "+v.Sent), "", 1, "L", false, 0, "")
	}
	if v.ShowDue {
		pdf.CellFormat(width, 5, tr("Due: "+v.Due), "", 1, "L", false, 0, "")
	}
	if v.ReferenceNumber != "" {
		pdf.CellFormat(width, 5, tr("Reference: "+v.ReferenceNumber), "", 1, "L", false, 0, "")
	}
	pdf.Ln(4)
	pdf.SetFont("Helvetica", "B", 10)
	pdf.CellFormat(width, 6, "Bill to", "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	for _, s := range v.Customer {
		pdf.MultiCell(width, 5, tr(s), "", "L", false)
	}
	pdf.Ln(5)

	// The lines: description (wrapped), quantity, unit price, amount.
	cols := []float64{width - 25 - 32 - 32, 25, 32, 32}
	pdf.SetFont("Helvetica", "B", 10)
	pdf.SetFillColor(235, 235, 235)
	for k, h := range []string{"Description", "Quantity", "Unit price", "Amount"} {
		align := "R"
		if k == 0 {
			align = "L"
		}
		pdf.CellFormat(cols[k], 7, h, "B", 0, align, true, 0, "")
	}
	pdf.Ln(-1)
	pdf.SetFont("Helvetica", "", 10)
	for _, l := range v.Lines {
		desc := wrap(l.Description, func(s string) float64 { return pdf.GetStringWidth(tr(s)) }, cols[0]-2)
		for k, s := range desc {
			pdf.CellFormat(cols[0], 5, tr(s), "", 0, "L", false, 0, "")
			if k == 0 {
				pdf.CellFormat(cols[1], 5, l.Quantity, "", 0, "R", false, 0, "")
				pdf.CellFormat(cols[2], 5, l.UnitPrice, "", 0, "R", false, 0, "")
				pdf.CellFormat(cols[3], 5, l.Amount, "", 0, "R", false, 0, "")
			}
			pdf.Ln(-1)
		}
		pdf.SetFont("Helvetica", "I", 9)
		for _, n := range l.Notes {
			pdf.CellFormat(cols[0], 4.5, tr("    "+n), "", 1, "L", false, 0, "")
		}
		pdf.SetFont("Helvetica", "", 10)
		pdf.Ln(1)
	}
	pdf.Ln(3)

	// Totals, settlements and the balance, right-aligned.
	labelW, valueW := 70.0, 32.0
	indent := width - labelW - valueW
	out := func(r row) {
		style := ""
		if r.Strong {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 10)
		pdf.CellFormat(indent, 6, "", "", 0, "L", false, 0, "")
		pdf.CellFormat(labelW, 6, tr(r.Label), "", 0, "L", false, 0, "")
		pdf.CellFormat(valueW, 6, r.Value, "", 1, "R", false, 0, "")
	}
	for _, r := range v.Totals {
		out(r)
	}
	for _, r := range v.Settlements {
		out(r)
	}
	out(row{Label: "Balance due", Value: v.BalanceDue, Strong: true})
	pdf.Ln(6)
	pdf.SetFont("Helvetica", "", 10)
	for _, blk := range []struct{ title, body string }{
		{"Memo", v.Memo}, {"Payment instructions", v.Instructions}, {"Accepted payment methods", v.PaymentMethods},
	} {
		if blk.body == "" {
			continue
		}
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(width, 6, blk.title, "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.MultiCell(width, 5, tr(blk.body), "", "L", false)
		pdf.Ln(2)
	}
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		return nil, fmt.Errorf("render invoice pdf: %w", err)
	}
	return b.Bytes(), nil
}

// wrap splits s (UTF-8) into lines no wider than w as width measures them,
// at spaces (a word wider than w gets a line of its own, cut by the cell).
// fpdf's SplitText reads its input as UTF-8, which the cp1252 text of a
// core font is not, so the text is wrapped before it is translated.
func wrap(s string, width func(string) float64, w float64) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case width(line+" "+word) <= w:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		out = append(out, line)
	}
	return out
}
