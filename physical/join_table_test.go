package physical_test

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// enrichTopology builds tests/bench's stream–table enrichment query:
// orders JOIN customers on the orders' key.
func enrichTopology(t *testing.T) *physical.Topology {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE STREAM orders (CUSTOMER_ID VARCHAR KEY, ORDER_ID VARCHAR, AMOUNT DOUBLE, ITEM VARCHAR)
  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON');
CREATE TABLE customers (ID VARCHAR PRIMARY KEY, NAME VARCHAR, CITY VARCHAR)
  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON');
CREATE STREAM enriched AS SELECT o.CUSTOMER_ID, c.NAME, c.CITY, o.ORDER_ID, o.AMOUNT
  FROM orders o JOIN customers c ON o.CUSTOMER_ID = c.ID EMIT CHANGES;`)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:2] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	plan, err := p.PlanCreateAs(stmts[2].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestStreamTableJoinAfterRestart loads a table, restarts the task on its
// stores (the row cache starts empty) and joins orders: each order is
// joined with its customer (none for an unknown one), and an order costs
// at most 10 allocations in the task once the table is warm (13 when the
// join made a new output row and its values for each order and boxed the
// table row's time on each lookup): those of the source's row and its
// decoded key and values, the stream row's time boxed, the projection's
// row and the sink's bytes.
func TestStreamTableJoinAfterRestart(t *testing.T) {
	topo := enrichTopology(t)
	stores, emit := mapStores{}, &formatted{topic: "ENRICHED"}
	newTask := func() *physical.Task {
		tk, err := topo.NewTask(0, &physical.TaskEnv{Emit: emit, Stores: stores})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	tk := newTask()
	for i := range 50 {
		v := fmt.Sprintf(`{"NAME":"name_%d","CITY":"city_%d"}`, i, i%7)
		if err := tk.Process(&physical.InRecord{Topic: "customers", Key: []byte(fmt.Sprintf("cust_%d", i)), Value: []byte(v), Timestamp: 1000}); err != nil {
			t.Fatal(err)
		}
	}
	tk = newTask()
	order := func(i int, cust string) *physical.InRecord {
		v := fmt.Sprintf(`{"ORDER_ID":"o%d","AMOUNT":%d.25,"ITEM":"item_%d"}`, i, i, i%3)
		return &physical.InRecord{Topic: "orders", Key: []byte(cust), Value: []byte(v), Timestamp: int64(2000 + i)}
	}
	for i, cust := range []string{"cust_3", "cust_49", "nobody", "cust_3"} {
		if err := tk.Process(order(i, cust)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`cust_3={"NAME":"name_3","CITY":"city_3","ORDER_ID":"o0","AMOUNT":0.25}@2000`,
		`cust_49={"NAME":"name_49","CITY":"city_0","ORDER_ID":"o1","AMOUNT":1.25}@2001`,
		`cust_3={"NAME":"name_3","CITY":"city_3","ORDER_ID":"o3","AMOUNT":3.25}@2003`,
	}
	if fmt.Sprint(emit.out) != fmt.Sprint(want) {
		t.Fatalf("joined\n%s\nwant\n%s", emit.out, want)
	}
	emit.topic = "" // keep nothing while counting
	rec := order(7, "cust_7")
	if n := testing.AllocsPerRun(200, func() {
		if err := tk.Process(rec); err != nil {
			t.Fatal(err)
		}
	}); n > 10 {
		t.Errorf("an order costs %.1f allocations, want at most 10", n)
	}
}
