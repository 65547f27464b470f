#!/usr/bin/env python3
"""Reads `go test -json` on stdin and prints it as `go test` would, but briefly: a line per package, and the whole
output of each test that failed (or of a package that failed outside its tests: a build error, a panic in init).

Usage: go test -json ... | tally-go-test.py TALLY_FILE STAGE

Appends "STAGE RAN PASSED FAILED SKIPPED" to TALLY_FILE, counting every test and subtest, and exits 1 if anything
failed. A test that started and never finished (its package panicked or timed out) counts as failed."""

import json
import sys


def main():
    tally_file, stage = sys.argv[1], sys.argv[2]
    output = {}  # (package, test) -> lines; test "" is the package's own output
    running = {}  # package -> tests started and not finished
    failed_in = {}  # package -> tests that failed
    passed = failed = skipped = 0
    for line in sys.stdin:
        try:
            e = json.loads(line)
        except ValueError:
            sys.stdout.write(line)  # go's own messages (a build that failed before any test ran)
            continue
        pkg, test, action = e.get("Package") or e.get("ImportPath", ""), e.get("Test", ""), e.get("Action")
        if action == "build-output":  # the compiler's or vet's complaints
            sys.stdout.write(e.get("Output", ""))
        elif action == "output":
            output.setdefault((pkg, test), []).append(e.get("Output", ""))
        elif test and action == "run":
            running.setdefault(pkg, set()).add(test)
        elif test and action in ("pass", "fail", "skip"):
            running.get(pkg, set()).discard(test)
            lines = output.pop((pkg, test), [])
            if action == "pass":
                passed += 1
            elif action == "skip":
                skipped += 1
            else:
                failed += 1
                failed_in[pkg] = failed_in.get(pkg, 0) + 1
                sys.stdout.write("".join(lines))
        elif not test and action in ("pass", "fail", "skip"):
            elapsed = e.get("Elapsed")
            if action == "pass":
                print(f"ok  \t{pkg}" + (f"\t{elapsed:.3f}s" if elapsed is not None else ""))
            elif action == "skip":
                print(f"?   \t{pkg}\t[no test files]")
            else:
                unfinished = sorted(running.get(pkg, ()))
                for t in unfinished:
                    sys.stdout.write("".join(output.get((pkg, t), [])))
                    print(f"--- FAIL: {t} (did not finish)")
                failed += len(unfinished)
                if not unfinished and not failed_in.get(pkg):
                    failed += 1  # it failed outside any test: a build error, a panic in init or TestMain
                own = "".join(output.get((pkg, ""), []))
                sys.stdout.write(own if "FAIL\t" + pkg in own else own + f"FAIL\t{pkg}\n")
            running.pop(pkg, None)
            output = {k: v for k, v in output.items() if k[0] != pkg}
    with open(tally_file, "a") as f:
        f.write(f"{stage} {passed + failed + skipped} {passed} {failed} {skipped}\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
