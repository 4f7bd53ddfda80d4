"""A seeded corpus of rules expressions over every value type, operator and standard library function, and the
way to ask a Firestore emulator what each one evaluates to.

Each case is a probe: a boolean rules condition built around one expression `E` — `(E) is T` for each type,
or `(E) == L` for a candidate value. A probe is asked through two rules on a document get,
`allow get: if (probe);` and `allow get: if !(probe);`, by an unauthenticated client: a get of a missing
document that the rules allow is NOT_FOUND, one they deny PERMISSION_DENIED. So each probe has one of three
outcomes, `true` (first allowed), `false` (second allowed) or `error` (both denied: evaluation failed).
A ruleset the emulator refuses to load makes the outcome `invalid`.

`record.py values` asks Google's official emulator and stores its outcomes in `corpus/rules_values.json`;
`test_rules_values.py` asks Hearth the same probes and compares (differential.py has what they share).
"""

from __future__ import annotations

import itertools
import random

import requests

from differential import Probe

# Literal samples of every rules value type, as rules source.
VALUES: dict[str, list[str]] = {
    "null": ["null"],
    "bool": ["true", "false"],
    "int": ["0", "1", "-1", "2", "7", "9223372036854775807", "-9223372036854775807", "1000000"],
    "float": ["0.0", "1.0", "-1.5", "2.5", "0.1", "1e308", "-0.0", "3.0"],
    "string": ["''", "'a'", "'abc'", "'ABC'", "'é'", "'😀'", "'a,b'", "'İ'", "' x '", "'1'", "'1.5'", "'true'"],
    "bytes": ["b''", "b'abc'", "b'\\x00\\xff'"],
    "list": ["[]", "[1]", "[1.0]", "[1, 2]", "['a', 'b']", "[1, 'a']", "[[1]]", "[null]", "[2, 1]"],
    "map": ["{}", "{'a': 1}", "{'a': 1.0}", "{'a': 1, 'b': 2}", "{'a': [1]}", "{'b': 'x'}"],
    "path": ["path('/a/b')", "path('a/b/c/d')", "/databases/(default)/documents/a/b"],
    "timestamp": ["timestamp.value(0)", "timestamp.value(1500000000123)", "timestamp.date(2024, 2, 29)"],
    "duration": ["duration.value(1, 's')", "duration.value(90, 'm')", "duration.time(1, 2, 3, 4)",
                 "duration.value(-1, 'ms')"],
    "latlng": ["latlng.value(1, 2)", "latlng.value(-90, 180)"],
    "set": ["[1, 2].toSet()", "['a'].toSet()", "[].toSet()"],
}

# The types a probe asks an expression's value to be.
TYPES = ["bool", "int", "float", "string", "bytes", "list", "map", "timestamp", "duration", "path", "latlng",
         "set"]

BINARY = ["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "in", "&&", "||"]

# Methods by receiver type: (method, argument lists as rules source).
METHODS: dict[str, list[tuple[str, list[str]]]] = {
    "string": [("size", [""]), ("lower", [""]), ("upper", [""]), ("trim", [""]), ("split", ["','", "''"]),
               ("matches", ["'a.*'", "'[a-z]+'", "'('"]), ("replace", ["'a', 'b'", "'.', 'x'"]),
               ("toUtf8", [""]), ("size", ["1"])],
    "list": [("size", [""]), ("hasAll", ["[1]", "[1.0]", "[]"]), ("hasAny", ["[1]", "['a']"]),
             ("hasOnly", ["[1, 2]", "[1.0]"]), ("concat", ["[1]", "'a'"]), ("join", ["','", ""]),
             ("removeAll", ["[1]", "[1.0]"]), ("toSet", [""])],
    "map": [("size", [""]), ("keys", [""]), ("values", [""]), ("get", ["'a', 0", "['a'], 0", "'z', null"]),
            ("diff", ["{}", "{'a': 2}"])],
    "bytes": [("size", [""]), ("toBase64", [""]), ("toHexString", [""])],
    "set": [("size", [""]), ("hasAll", ["[1]"]), ("hasAny", ["[1]"]), ("hasOnly", ["[1, 2]"]),
            ("difference", ["[1].toSet()"]), ("intersection", ["[1].toSet()"]), ("union", ["[3].toSet()"])],
    "timestamp": [("year", [""]), ("month", [""]), ("day", [""]), ("hours", [""]), ("minutes", [""]),
                  ("seconds", [""]), ("nanos", [""]), ("dayOfWeek", [""]), ("dayOfYear", [""]),
                  ("toMillis", [""]), ("date", [""]), ("time", [""])],
    "duration": [("seconds", [""]), ("nanos", [""])],
    "latlng": [("latitude", [""]), ("longitude", [""]), ("distance", ["latlng.value(1, 3)"])],
    "path": [("bind", ["{'x': 1}"])],
}

# Global functions and the argument lists tried with each.
FUNCTIONS: dict[str, list[str]] = {
    "int": ["'1'", "1.5", "-1.5", "'x'", "true", "1e19", "'9223372036854775808'"],
    "float": ["1", "'1.5'", "'x'", "'NaN'"],
    "string": ["1", "1.0", "1.5", "true", "null", "b'a'", "[1]", "1e21"],
    "bool": ["'true'", "'false'", "'x'", "1"],
    "math.abs": ["-1", "-1.5", "'a'"],
    "math.ceil": ["1.5", "-1.5", "2"],
    "math.floor": ["1.5", "-1.5", "2"],
    "math.round": ["1.5", "2.5", "-1.5", "2"],
    "math.sqrt": ["4", "2.25", "-1"],
    "math.pow": ["2, 3", "2.0, 0.5", "0, -1"],
    "math.isInfinite": ["1.0", "1e308 * 10"],
    "math.isNaN": ["1.0", "0.0 / 0.0"],
    "hashing.md5": ["b'a'", "'a'"],
    "hashing.sha256": ["b'a'", "'a'"],
    "hashing.crc32": ["b'a'", "'a'"],
    "hashing.crc32c": ["b'a'", "'a'"],
    "timestamp.value": ["-62135596800001", "253402300800000"],
    "timestamp.date": ["2023, 2, 29", "0, 1, 1"],
    "duration.value": ["1, 'x'", "1.5, 's'", "1, 'w'", "1, 'ns'"],
    "duration.abs": ["duration.value(-1, 's')"],
    "latlng.value": ["91, 0", "0, 181"],
    "debug": ["1"],
}

# Candidate values a probe compares an expression with, by the kind of result expected.
CANDIDATES = ["true", "false", "0", "1", "2", "3", "-1", "1.0", "1.5", "2.0", "-2.0", "'a'", "'abc'", "''",
              "[]", "[1]", "[1, 2]", "{}", "null", "9223372036854775807", "-9223372036854775807 - 1"]


def expressions(rng: random.Random) -> list[str]:
    """Every expression family, in a fixed order, with samples drawn from `rng`."""
    samples = [value for values in VALUES.values() for value in values]
    out: list[str] = []
    for op in BINARY:
        pairs = list(itertools.product(samples, repeat=2))
        for left, right in rng.sample(pairs, 40):
            out.append(f"{left} {op} {right}")
    for value in samples:
        out.append(f"!{value}")
        out.append(f"-{value}")
    for receiver_type, methods in METHODS.items():
        for receiver in VALUES[receiver_type]:
            for method, argument_lists in methods:
                for arguments in argument_lists:
                    out.append(f"{receiver}.{method}({arguments})")
    for function, argument_lists in FUNCTIONS.items():
        for arguments in argument_lists:
            out.append(f"{function}({arguments})")
    for receiver in VALUES["string"] + VALUES["list"] + VALUES["bytes"]:
        for index in ("[0]", "[1]", "[-1]", "[0:1]", "[1:]", "[:0]"):
            out.append(f"{receiver}{index}")
    for receiver in VALUES["map"]:
        out.append(f"{receiver}.a")
        out.append(f"{receiver}['a']")
        out.append(f"'a' in {receiver}")
    for ts, duration in itertools.product(VALUES["timestamp"], VALUES["duration"]):
        out.append(f"{ts} + {duration}")
        out.append(f"{ts} - {duration}")
    out.append("9223372036854775807 + 1")
    out.append("-9223372036854775807 - 2")
    out.append("9223372036854775807 * 2")
    out.append("(-9223372036854775807 - 1) / -1")
    out.append("(-9223372036854775807 - 1) % -1")
    out.append("1 / 0")
    out.append("1 % 0")
    out.append("1.0 / 0")
    out.append("7 / 2")
    out.append("-7 / 2")
    out.append("-7 % 2")
    out.append("7.5 % 2")
    return out


def probes(seed: int = 19, equality_candidates: int = 3) -> list[Probe]:
    """The corpus for `seed`: for each expression, a type probe per type and equality probes with
    `equality_candidates` candidates drawn from `CANDIDATES`."""
    rng = random.Random(seed)
    conditions: list[str] = []
    for expression in expressions(rng):
        conditions.append(f"({expression})")
        for type_name in TYPES:
            conditions.append(f"({expression}) is {type_name}")
        for candidate in rng.sample(CANDIDATES, equality_candidates):
            conditions.append(f"({expression}) == {candidate}")
    unique = list(dict.fromkeys(conditions))
    return [Probe(index, condition) for index, condition in enumerate(unique)]


def ruleset(batch: list[Probe]) -> str:
    """Rules that ask each probe of `batch` through two collections: `p<id>` allows a get when the probe
    holds, `n<id>` when its negation does."""
    lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {"]
    for probe in batch:
        lines.append(f"    match /p{probe.id}/{{doc}} {{ allow get: if {probe.condition}; }}")
        lines.append(f"    match /n{probe.id}/{{doc}} {{ allow get: if !({probe.condition}); }}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def ask(base: str, project: str, probe: Probe, http: requests.Session) -> str:
    """`true`, `false` or `error` (see the module's comment); an unexpected answer as `status <code>`."""
    root = f"{base}/v1/projects/{project}/databases/(default)/documents"
    answers = []
    for collection in (f"p{probe.id}", f"n{probe.id}"):
        status = http.get(f"{root}/{collection}/doc", timeout=30).status_code
        if status not in (403, 404):
            return f"status {status}"
        answers.append(status == 404)
    if answers == [True, False]:
        return "true"
    if answers == [False, True]:
        return "false"
    if answers == [False, False]:
        return "error"
    return "both"
