// Package policy implements Sigil's policy language and the decision that applies an
// organization's policies to an activity. It is pure: no I/O and no mutable globals.
//
// # Expressions
//
// A policy has two optional expressions. The condition says what the policy covers
// (keywords activity, eth.tx, eth.eip_712, eth.eip_7702_authorization, solana.tx,
// bitcoin.tx, tron.tx, wallet, wallets, wallet_account, private_key); the consensus says who may act (approvers,
// credentials). Compile parses and type-checks one expression for its field, once;
// the compiled Expr is evaluated for every request with Eval.
//
// Grammar (EBNF; whitespace separates tokens and is otherwise ignored):
//
//	expr       = and { "||" and } .
//	and        = comparison { "&&" comparison } .
//	comparison = unary [ ( "==" | "!=" | "<" | ">" | "<=" | ">=" | "in" ) unary ] .
//	unary      = "!" unary | postfix .
//	postfix    = primary { "." name [ "(" [ args ] ")" ] | "[" expr [ ".." expr ] "]" } .
//	primary    = int | string | "true" | "false" | list | name [ "(" [ args ] ")" ] | "(" expr ")" .
//	list       = "[" [ args ] "]" .
//	args       = expr { "," expr } .
//	name       = ( letter | "_" ) { letter | digit | "_" } .
//	int        = digit { digit } .                       (decimal, 0 ..= 2^256-1)
//	string     = "'" { any character except "'" } "'" .  (no escapes; double quotes are an error)
//
// Precedence, tightest first: postfix (field, method, index, slice); "!"; the
// comparisons and "in", which do not chain; "&&"; "||". "&&" and "||" associate to
// the left. So "!a == b" is "(!a) == b", and "a || b && c" is "a || (b && c)";
// write the parentheses anyway, as every reference example does.
//
// Types: bool, int (unsigned 256-bit), string, list<T>, the structs of the schema
// (User, Credential, Wallet, ...), and dynamic values (eth.eip_712.message, decoded
// JSON), which are checked at evaluation. Operations:
//
//	a == b, a != b       strings, ints or bools of the same type
//	a < b, <=, >, >=     ints
//	x in xs              x of the list's element type
//	s[i], s[lo..hi]      a one-byte string; a substring, end-exclusive, in bytes
//	xs[i], xs[lo..hi]    an element; a sub-list, end-exclusive
//	m['k']               a key of eth.eip_712.message (chainable) or of activity.params
//	xs.any(v, p)         true if p holds for some element, bound to v
//	xs.all(v, p)         true if p holds for every element
//	xs.filter(v, p)      the elements for which p holds
//	xs.contains(x)       x in xs
//	xs.count()           the number of elements
//
// An index or slice outside the value is an evaluation error, so eth.tx.data[0..10]
// (the 0x prefix and the 4-byte selector) fails on calldata shorter than a selector.
//
// Equality of strings: two strings that both start with "0x" (addresses, calldata,
// hashes) compare case-insensitively (ASCII letters only), so a checksummed address
// equals its lower-case form. Other strings, including hex written without the 0x
// prefix, compare exactly; the coordinator fills hex fields in lower case. The same
// rule applies to "in" and contains.
//
// Dynamic values compare loosely: a JSON string holding a decimal or 0x-hex integer
// compares with an int, and a JSON number with a string by its decimal text.
//
// Literals read as the reference's documentation writes them: a quoted decimal compared
// with an int is that number (eth.tx.chain_id == '8453'). eth.tx.function_signature is
// the selector of the function called ('0xa9059cbb'); a literal compared with it may
// also be the function's signature ('transfer(address,uint256)'), read as its selector,
// and any other literal is refused.
//
// Compile refuses, with the column and an actionable message: syntax errors, unknown
// keywords and fields (suggesting the closest name), keywords of the other field,
// type mismatches such as eth.tx.chain_id == '0x1', methods on the wrong type or with
// the wrong number of arguments, and bound variables that shadow a keyword or an
// enclosing bound variable. Keywords of the reference that need what Sigil lacks
// (tempo.tx, secret) are refused as "not supported yet". xs.count
// without parentheses, as the reference's own examples write it, is xs.count().
//
// Evaluation does not short-circuit: every clause is evaluated, and an error anywhere
// (an *EvalError: a keyword that does not apply to the request, a missing
// activity.params key, a value the request's data leaves out, an index out of range, a dynamic value of the wrong type, or
// more than 100,000 steps of nested methods) is an error of the whole expression. A Budget bounds the steps of every
// expression one activity evaluates together (EvalWithin, Request.Budget); once it is spent the error is a
// *BudgetError, which is no *EvalError, and Decide refuses the activity. For the decision only, the logical operators
// follow Kleene's three-valued logic, so "false && <error>" is known to be false and
// "true || <error>" true (a policy decided either way despite a failed clause counts as
// decided); see Decide.
//
// # Decision
//
// Decide applies the root quorum, rejections, the root-only rule, deny-wins
// policies, consensus and implicit permissions in the order documented on it. A policy
// whose condition fails only because the request does not have what it reads
// (Inapplicable) does not apply, as in the reference; a DENY that fails on the data of
// something the request has closes the door unless its failure cannot matter, and so
// does every failing DENY with Request.StrictDeny. It reports each policy's
// outcome with the messages of the reference ("No policies evaluated to outcome:
// Allow", "The following policies denied this action: <ids>").
//
// The facts of each activity type (resource, action, kind, root-only, the
// activity.params it exposes) come with the request: the coordinator lists them
// beside each activity type (docs/ACTIVITIES.md). Params is the vocabulary of
// activity.params the type checker knows.
package policy
