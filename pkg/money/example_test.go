package money_test

import (
	"fmt"

	"github.com/acctsuite/acct/pkg/money"
)

func ExampleParse() {
	c, err := money.Parse("1234.5")
	fmt.Println(int64(c), err, money.Format(c))
	_, err = money.Parse("1.234")
	fmt.Println(err)
	// Output:
	// 123450 <nil> 1234.50
	// money: parse amount "1.234": must have at most 2 decimal places
}

func ExampleLineTotal() {
	q, _ := money.ParseQuantity("1.5")
	total, _ := money.LineTotal(q, 333) // 1.5 × $3.33 = $4.995
	fmt.Println(total)
	// Output: 5.00
}

func ExampleSplitInclusive() {
	hst, _ := money.ParsePercent("13")
	net, tax := money.SplitInclusive(11300, hst) // a $113.00 Ontario receipt
	fmt.Println(net, tax)
	// Output: 100.00 13.00
}

func ExampleAllocate() {
	// $100.00 over three categories weighted 1:1:1: the first part takes the
	// odd cent, and the parts add up to the total.
	parts, _ := money.Allocate(10000, []int64{1, 1, 1})
	fmt.Println(parts)
	// Output: [33.34 33.33 33.33]
}
