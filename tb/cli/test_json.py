#!/usr/bin/env python3
"""--json of every reporting subcommand of the etm tool, validated against the
documented schema (docs/schema/etm-result-v1.schema.json) with Debian's
python3-jsonschema, and the figures checked against one another: the cycles
gen wrote are the cycles run, check, verify and snapshot read; the trace bytes
run counted are the bytes decode and verify read; a wrong trace fails verify
with its rule; a broken stimulus fails check with its rule and line; run,
snapshot and decode name and count the packets of one trace alike. A
mutilated result must fail the schema too, so the validator is shown to bite.

    test_json.py ETM SCHEMA WORKDIR RULES_DIR SWO_DIR
"""
import copy
import json
import os
import subprocess
import sys

import jsonschema

etm, schema_path, work, rules_dir, swo_dir = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
os.chdir(work)
with open(schema_path) as f:
    schema = json.load(f)
validator = jsonschema.Draft202012Validator(schema)
jsonschema.Draft202012Validator.check_schema(schema)
failures = []


def run(*args, status=0):
    p = subprocess.run([etm, *args], capture_output=True, text=True)
    if p.returncode != status:
        failures.append(f"etm {' '.join(args)}: exit {p.returncode}, expected {status}: {p.stderr.strip()}")
        return None
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        failures.append(f"etm {' '.join(args)}: not one JSON object on stdout: {e}: {p.stdout[:200]!r}")
        return None
    errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs:
        failures.append(f"etm {' '.join(args)}: schema: {list(e.path)}: {e.message}")
    if doc.get("exit_status") != status:
        failures.append(f"etm {' '.join(args)}: exit_status {doc.get('exit_status')}, exit {status}")
    return doc


def expect(cond, what):
    if not cond:
        failures.append(what)


gen = run("gen", "--json", "--cycles", "60000", "--seed", "3", "--atb-stall", "40", "--atb-burst", "20",
          "--events", "ev.txt", "s.vec")
runr = run("run", "--json", "--trace", "t.bin", "s.vec")
tpiu = run("run", "--json", "--tpiu", "4", "--trace", "pins.bin", "s.vec")
check = run("check", "--json", "s.vec")
bad = run("check", "--json", "--warn", os.path.join(rules_dir, "CANCEL_WITHOUT_ENTRY.vec"), status=1)
dec = run("decode", "--json", "--config", "s.vec", "t.bin")
ver = run("verify", "--json", "s.vec", "t.bin")
subprocess.run([etm, "gen", "--cycles", "60000", "--seed", "4", "other.vec"], check=True)
subprocess.run([etm, "run", "--quiet", "--trace", "other.bin", "other.vec"], check=True)
wrong = run("verify", "--json", "s.vec", "other.bin", status=1)
snap = run("snapshot", "--json", "s.vec", "snap")
subprocess.run([etm, "gen", "--preset", "etmv1.3", "--cycles", "20000", "v1.vec"], check=True)
subprocess.run([etm, "run", "--quiet", "--out", "port.vec", "v1.vec"], check=True)
v1ver = run("verify", "--json", "v1.vec", "port.vec")
swo = run("swo", "--json", "--out", "swo.bin", os.path.join(swo_dir, "hello.sr"))
swo_bad = run("swo", "--json", "--baud", "3M", os.path.join(swo_dir, "break.sr"), status=1)

if None not in (gen, runr, tpiu, check, bad, dec, ver, wrong, snap, v1ver, swo, swo_bad):
    n = gen["cycles"]
    expect(runr["stats"]["cycles"] == n, "run: cycles differ from gen's")
    expect(check["cycles"] == n and check["violations"] == 0, "check: cycles or violations")
    expect(ver["result"]["cycles"] == n, "verify: cycles differ from gen's")
    expect(snap["stats"]["cycles"] == n, "snapshot: cycles differ from gen's")
    expect(gen["generated"]["instructions"] > 0, "gen: no instructions")
    with open("ev.txt") as f:
        insns = sum(1 for line in f if " insn " in line)
    expect(insns == gen["generated"]["instructions"], "gen: instructions differ from its --events file")
    expect(runr["stats"]["instructions"] == gen["generated"]["instructions"], "run: instructions differ from gen's")
    tb = runr["stats"]["trace_bytes"]
    expect(tb == os.path.getsize("t.bin"), "run: trace_bytes is not the size of the trace file")
    expect(dec["stats"]["bytes"] == tb and dec["errors"] == 0, "decode: bytes differ from run's, or errors")
    expect(ver["result"]["bytes"] == tb and ver["passed"] and ver["first_failure"] is None, "verify: the right trace")
    # One vocabulary: run and decode name and count the same trace's packets alike.
    expect(runr["stats"]["packets"] == dec["stats"]["packets"],
           f"run and decode count the packets otherwise: {runr['stats']['packets']} {dec['stats']['packets']}")
    expect(sum(runr["stats"]["p_header_formats"].values()) == runr["stats"]["packets"].get("P_HDR"),
           "run: the P-header formats do not add up to its P_HDR count")
    expect(snap["stats"]["packets"] == runr["stats"]["packets"], "snapshot: packets named or counted otherwise than run's")
    expect(runr["stats"]["overflows"] > 0, "run: the stalled ATB made no overflow")
    expect(ver["result"]["overflows"] == runr["stats"]["overflows"], "verify: overflows differ from run's")
    expect(tpiu.get("tpiu", {}).get("pins") == 4 and tpiu["tpiu"]["frames"] > 0, "run --tpiu: the TPIU's figures")
    expect(not wrong["passed"] and wrong["first_failure"]["rule"] != "", "verify: the wrong trace passes")
    expect(bad["violations"] == 1 and bad["rules"] == {"CANCEL_WITHOUT_ENTRY": 1}, "check: the broken stimulus")
    expect(bad["reported"] and bad["reported"][0]["rule"] == "CANCEL_WITHOUT_ENTRY" and "line" in bad["reported"][0],
           "check: the violation reported without its rule or line")
    expect(snap["trace_format"] == "source_data" and os.path.isfile(snap["trace"]), "snapshot: the trace file")
    expect(v1ver["protocol"] == "etmv1" and v1ver["passed"], "verify: the ETMv1 port")
    expect(swo["bytes"] == os.path.getsize("swo.bin") == 11 and swo["framing_errors"] == 0 and
           swo["baud_guess"] == swo["baud"] == 3000000, "swo: the bytes, or the rate guessed")
    expect(swo_bad["framing_errors"] == len(swo_bad["reported"]) == 1 and swo_bad["reported"][0]["start"] == 300,
           "swo: the break's framing error")
    # The validator bites: results with a member missing, one unknown, one of the wrong type.
    for name, doc, edit in (
            ("verify without result", ver, lambda d: d.pop("result")),
            ("run with an unknown member", runr, lambda d: d.__setitem__("extra", 1)),
            ("check with violations as text", check, lambda d: d.__setitem__("violations", "0")),
            ("decode of another protocol", dec, lambda d: d.__setitem__("protocol", "etmv4")),
            ("run naming a packet otherwise", runr, lambda d: d["stats"]["packets"].__setitem__("P-header format 1", 1)),
            ("another schema version", gen, lambda d: d.__setitem__("schema_version", 2)),
            ("swo with a byte value above 255", swo_bad, lambda d: d["reported"][0].__setitem__("value", 256))):
        d = copy.deepcopy(doc)
        edit(d)
        expect(not validator.is_valid(d), f"the schema accepts {name}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("every --json result valid against the schema, and its figures consistent")
