package policy

// voterSet records, for a consensus expression, which approvals can count toward it.
type voterSet struct {
	// anyone is set when the expression reads approvers or credentials other than
	// through a predicate (approvers.count() >= 2), so every approval counts.
	anyone bool
	// tests are the outermost predicates over approvers and credentials, each
	// rewritten as keyword.any(v, predicate) to be run against one voter.
	tests []*Expr
}

// voterTests finds the outermost methods over approvers and credentials. A method
// inside another method's predicate is part of that predicate's test.
func voterTests(tree node) (*voterSet, error) {
	vs := &voterSet{}
	var walk func(n node) error
	walk = func(n node) error {
		switch n := n.(type) {
		case *identNode:
			if n.name == "approvers" || n.name == "credentials" {
				vs.anyone = true
			}
		case *methodNode:
			if id, ok := n.x.(*identNode); ok && (id.name == "approvers" || id.name == "credentials") &&
				(n.name == "any" || n.name == "all" || n.name == "filter") {
				test := &methodNode{pos: n.pos, x: id, name: "any", args: n.args}
				e, err := compileTree(test, Consensus, format(test))
				if err != nil {
					return err
				}
				vs.tests = append(vs.tests, e)
				return nil
			}
			if err := walk(n.x); err != nil {
				return err
			}
			for _, a := range n.args {
				if err := walk(a); err != nil {
					return err
				}
			}
		case *fieldNode:
			return walk(n.x)
		case *indexNode:
			return walkAll(walk, n.x, n.index)
		case *sliceNode:
			return walkAll(walk, n.x, n.lo, n.hi)
		case *listNode:
			return walkAll(walk, n.elems...)
		case *callNode:
			return walkAll(walk, n.args...)
		case *notNode:
			return walk(n.x)
		case *binaryNode:
			return walkAll(walk, n.l, n.r)
		}
		return nil
	}
	if err := walk(tree); err != nil {
		return nil, err
	}
	return vs, nil
}

func walkAll(walk func(node) error, ns ...node) error {
	for _, n := range ns {
		if err := walk(n); err != nil {
			return err
		}
	}
	return nil
}

// Names reports whether an approval by voter, made with one of credentials, could
// count toward this consensus: some predicate over approvers accepts the voter
// (approvers.any(u, u.tags.contains('admin')) for an admin), some predicate over
// credentials accepts one of the voter's credentials, or the expression counts
// approvals without a predicate (approvers.count() >= 2), so anyone's counts. It is
// false for a condition expression and when every predicate fails for the voter.
func (e *Expr) Names(voter User, credentials []Credential) bool {
	if e.voters == nil {
		return false
	}
	if e.voters.anyone {
		return true
	}
	in := &Input{Approvers: []User{voter}, Credentials: credentials}
	for _, t := range e.voters.tests {
		if ok, err := t.Eval(in); ok && err == nil {
			return true
		}
	}
	return false
}

// CanVote reports whether voter may approve or reject the activity of r: a member
// of the root quorum, or a user named (see Expr.Names) by the consensus of an ALLOW
// policy whose condition holds for the activity. An applicable ALLOW without a
// consensus names everyone. The coordinator uses it for canApprove and canReject,
// to accept votes, and for Request.VoterInConsensus of the vote's own decision.
func CanVote(r *Request, voter User, credentials []Credential) bool {
	if indexOf(r.RootQuorum.UserIDs, voter.ID) >= 0 && voter.ID != "" {
		return true
	}
	in := r.Input
	if in == nil {
		in = &Input{}
	}
	budget := r.Budget
	if budget == nil {
		budget = NewBudget(DefaultBudget, nil)
	}
	for i := range r.Policies {
		p := &r.Policies[i]
		if p.Effect != EffectAllow {
			continue
		}
		if _, cond, err := run(p.Condition, Condition, in, budget); err != nil || !cond {
			continue
		}
		if p.Consensus == nil || p.Consensus.Names(voter, credentials) {
			return true
		}
	}
	return false
}
