package policy

import (
	"reflect"
	"testing"
)

func TestControls(t *testing.T) {
	t.Parallel()
	e, err := Compile("activity.action == 'SIGN' && controls.daily_usdc && controls['hourly_count'] && !controls.daily_usdc == false", Condition)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Controls(); !reflect.DeepEqual(got, []string{"daily_usdc", "hourly_count"}) {
		t.Errorf("Controls() = %v", got)
	}
	in := &Input{Activity: factsOf(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", nil), Controls: map[string]bool{"daily_usdc": true, "hourly_count": true}}
	if ok, err := e.Eval(in); !ok || err != nil {
		t.Errorf("both controls pass: %v, %v", ok, err)
	}
	in.Controls["hourly_count"] = false
	if ok, err := e.Eval(in); ok || err != nil {
		t.Errorf("one control fails: %v, %v", ok, err)
	}
	delete(in.Controls, "hourly_count")
	if _, err := e.Eval(in); err == nil {
		t.Error("a control that did not measure the activity evaluated without error")
	}
	if _, err := Compile("approvers.count() > 0 && controls.x", Consensus); err == nil {
		t.Error("controls compiled in the consensus field")
	}
	if _, err := Compile("controls.x == 1", Condition); err == nil {
		t.Error("a control compared with an int compiled")
	}
}
