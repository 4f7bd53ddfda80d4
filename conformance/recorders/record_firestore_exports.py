#!/usr/bin/env python3
"""Produce golden Firestore exports with Google's official Cloud Firestore
emulator.

For each case this script starts the Java emulator on a free loopback port,
writes documents over the REST API, asks the emulator to export
(POST /emulator/v1/projects/{p}:export), reads every document back over REST
into <case>.documents.json, and stops the emulator by PID.

Output layout (GOLDEN = Tests/FirestoreEmulatorTests/Exports):
  GOLDEN/<case>/firestore_export/firestore_export.overall_export_metadata
  GOLDEN/<case>/firestore_export/all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata
  GOLDEN/<case>/firestore_export/all_namespaces/all_kinds/output-N
  GOLDEN/<case>.documents.json

Usage: .venv/bin/python conformance/recorders/record_firestore_exports.py [case ...]   (default: all cases)
(the sharded case's listing is not kept in the repo: its test checks the documents it knows were written)
Cases: all-types named-db empty sharded
"""
import base64
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from official_firestore import Emulator, dump_json  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "Tests", "FirestoreEmulatorTests", "Exports")
PROJECT = "demo-hearth"
EXPORT_NAME = "firestore_export"


def ref(path, project=PROJECT, database="(default)"):
    return {"referenceValue": "projects/%s/databases/%s/documents/%s" % (project, database, path)}


def b64(data):
    return base64.b64encode(data).decode()


# ---------------------------------------------------------------------------
# The value catalogue: doc id in collection `types` -> fields
# Every document holds a single field `v` (plus, for some, extra fields) so
# a decoder test can look at one value type at a time.
# ---------------------------------------------------------------------------
TYPES = {
    "null": {"v": {"nullValue": None}},
    "bool_true": {"v": {"booleanValue": True}},
    "bool_false": {"v": {"booleanValue": False}},
    "int_zero": {"v": {"integerValue": "0"}},
    "int_one": {"v": {"integerValue": "1"}},
    "int_neg": {"v": {"integerValue": "-42"}},
    "int_min": {"v": {"integerValue": "-9223372036854775808"}},
    "int_max": {"v": {"integerValue": "9223372036854775807"}},
    "double_1_5": {"v": {"doubleValue": 1.5}},
    "double_integral": {"v": {"doubleValue": 3.0}},
    "double_zero": {"v": {"doubleValue": 0.0}},
    "double_neg_zero": {"v": {"doubleValue": -0.0}},
    "double_nan": {"v": {"doubleValue": "NaN"}},
    "double_pos_inf": {"v": {"doubleValue": "Infinity"}},
    "double_neg_inf": {"v": {"doubleValue": "-Infinity"}},
    "double_min_subnormal": {"v": {"doubleValue": 5e-324}},
    "double_max": {"v": {"doubleValue": 1.7976931348623157e308}},
    "double_pi": {"v": {"doubleValue": 3.141592653589793}},
    "string_ascii": {"v": {"stringValue": "hello"}},
    "string_unicode": {"v": {"stringValue": "h\u00e9llo w\u00f6rld \u65e5\u672c\u8a9e \U0001F525 \u0000nul"}},
    "string_empty": {"v": {"stringValue": ""}},
    "string_long": {"v": {"stringValue": "x" * 2000}},
    "bytes_empty": {"v": {"bytesValue": ""}},
    "bytes_small": {"v": {"bytesValue": b64(b"\x00\x01\x02\xfe\xffhello")}},
    "bytes_long": {"v": {"bytesValue": b64(bytes(range(256)) * 8)}},
    "ts_micros": {"v": {"timestampValue": "2024-01-02T03:04:05.123456Z"}},
    "ts_nanos": {"v": {"timestampValue": "2024-01-02T03:04:05.123456789Z"}},
    "ts_millis": {"v": {"timestampValue": "2024-01-02T03:04:05.120Z"}},
    "ts_epoch": {"v": {"timestampValue": "1970-01-01T00:00:00Z"}},
    "ts_pre_epoch": {"v": {"timestampValue": "1969-12-31T23:59:59.500001Z"}},
    "ts_pre_epoch_nanos": {"v": {"timestampValue": "1969-12-31T23:59:59.1234567Z"}},
    "ts_min": {"v": {"timestampValue": "0001-01-01T00:00:00Z"}},
    "ts_max": {"v": {"timestampValue": "9999-12-31T23:59:59.999999Z"}},
    "geo": {"v": {"geoPointValue": {"latitude": 37.422, "longitude": -122.084}}},
    "geo_extreme": {"v": {"geoPointValue": {"latitude": -90.0, "longitude": 180.0}}},
    "geo_zero": {"v": {"geoPointValue": {}}},
    "ref_doc": {"v": ref("types/null")},
    "ref_subcollection": {"v": ref("a/missing/sub/doc")},
    "ref_numeric_id": {"v": ref("ids/123")},
    "ref_int_id": {"v": ref("ids/__id42__")},
    "ref_other_db": {"v": ref("x/y", database="other")},
    "array_empty": {"v": {"arrayValue": {}}},
    "array_single": {"v": {"arrayValue": {"values": [{"integerValue": "7"}]}}},
    "array_mixed": {"v": {"arrayValue": {"values": [
        {"integerValue": "1"}, {"stringValue": "two"}, {"doubleValue": 3.0},
        {"booleanValue": True}, {"nullValue": None},
        {"timestampValue": "2020-02-29T12:00:00.000001Z"},
        {"geoPointValue": {"latitude": 1.5, "longitude": -2.5}},
        {"bytesValue": b64(b"\x01\x02")}, ref("types/null"),
        {"mapValue": {"fields": {"k": {"stringValue": "v"}}}},
        {"integerValue": "1"},
    ]}}},
    "array_of_maps": {"v": {"arrayValue": {"values": [
        {"mapValue": {"fields": {"a": {"integerValue": "1"}}}},
        {"mapValue": {}},
        {"mapValue": {"fields": {"b": {"mapValue": {"fields": {"c": {"integerValue": "2"}}}}}}},
    ]}}},
    "array_of_empty_arrays_in_maps": {"v": {"arrayValue": {"values": [
        {"mapValue": {"fields": {"e": {"arrayValue": {}}}}},
    ]}}},
    "map_empty": {"v": {"mapValue": {}}},
    "map_simple": {"v": {"mapValue": {"fields": {"a": {"integerValue": "1"}, "b": {"stringValue": "x"}}}}},
    "map_nested3": {"v": {"mapValue": {"fields": {"l1": {"mapValue": {"fields": {
        "l2": {"mapValue": {"fields": {"l3": {"mapValue": {"fields": {
            "leaf": {"stringValue": "deep"}}}}}}}}}}}}}},
    "map_odd_keys": {"v": {"mapValue": {"fields": {
        "\u00fcn\u00efc\u00f6d\u00e9 \U0001F600": {"integerValue": "1"},
        "a.b": {"integerValue": "2"},
        "with space": {"integerValue": "3"},
        "back`tick": {"integerValue": "4"},
        "123": {"integerValue": "5"},
    }}}},
    "map_array_map": {"v": {"mapValue": {"fields": {"outer": {"arrayValue": {"values": [
        {"mapValue": {"fields": {"inner": {"mapValue": {"fields": {"x": {"integerValue": "1"}}}},
                                 "list": {"arrayValue": {"values": [{"stringValue": "s"}]}}}}},
        {"stringValue": "plain"},
    ]}}}}}},
    "map_with_types": {"v": {"mapValue": {"fields": {
        "ts": {"timestampValue": "2001-09-09T01:46:40Z"},
        "geo": {"geoPointValue": {"latitude": 10, "longitude": 20}},
        "bytes": {"bytesValue": b64(b"zz")},
        "ref": ref("types/null"),
        "nul": {"nullValue": None},
        "d": {"doubleValue": "NaN"},
        "s_long": {"stringValue": "y" * 1600},
    }}}},
    "vector": {"v": {"mapValue": {"fields": {
        "__type__": {"stringValue": "__vector__"},
        "value": {"arrayValue": {"values": [{"doubleValue": 1.0}, {"doubleValue": 2.5}]}}}}}},
    "vector_one": {"v": {"mapValue": {"fields": {
        "__type__": {"stringValue": "__vector__"},
        "value": {"arrayValue": {"values": [{"doubleValue": 0.5}]}}}}}},
    "field_names": {
        "\u00fcn\u00efc\u00f6d\u00e9": {"integerValue": "1"},
        "dotted.name": {"integerValue": "2"},
        "with space": {"integerValue": "3"},
        "`back`tick": {"integerValue": "4"},
        "7": {"integerValue": "5"},
        "emoji\U0001F525": {"integerValue": "6"},
    },
    "empty_doc": {},
    "many_fields": {("f%02d" % i): {"integerValue": str(i)} for i in range(12)},
    "big_doc": {"v": {"stringValue": "B" * 100000}},
}


def write_all_types(emu):
    p = PROJECT
    rejected = {}
    for doc_id, fields in TYPES.items():
        try:
            emu.patch(p, "types/" + doc_id, fields)
        except RuntimeError as e:
            rejected["types/" + doc_id] = str(e)
    # document ids that look like numbers / Datastore numeric ids
    for doc_id in ["123", "0", "-5", "007", "9223372036854775807",
                   "9223372036854775808", "__id42__", "__id-7__", "__id0__",
                   "__idabc__", "h\u00e9llo w\u00f6rld", "a b", "with.dot"]:
        try:
            emu.patch(p, "ids/" + doc_id, {"id": {"stringValue": doc_id}})
        except RuntimeError as e:
            rejected["ids/" + doc_id] = str(e)
    # auto id document
    auto = emu.create_auto(p, "auto", {"auto": {"booleanValue": True}})
    # nested documents and subcollections
    emu.patch(p, "types/withsub", {"parent": {"booleanValue": True}})
    emu.patch(p, "types/withsub/sub/child", {"child": {"integerValue": "1"}})
    emu.patch(p, "types/withsub/sub/child/deeper/leaf", {"depth": {"integerValue": "3"}})
    # subcollection under a parent that is never written
    emu.patch(p, "a/missing/sub/doc", {"under_missing": {"booleanValue": True}})
    # collection with unicode name
    emu.patch(p, "c\u00f6ll\u00e9ction/d\u00f6c", {"x": {"integerValue": "1"}})
    # deleted document should not appear
    emu.patch(p, "types/deleted", {"x": {"integerValue": "1"}})
    import requests
    requests.delete(emu.db_root(p) + "/types/deleted", headers={"Authorization": "Bearer owner"})
    return {"auto_id": auto["name"], "rejected_writes": rejected}


def write_named_db(emu):
    emu.patch(PROJECT, "c/d", {"db": {"stringValue": "other"}, "r": ref("c/d", database="other")},
              database="other")
    emu.patch(PROJECT, "c/d/sub/e", {"n": {"integerValue": "1"}}, database="other")
    # also one doc in (default) so we can see it is NOT part of the named-db export
    emu.patch(PROJECT, "c/d", {"db": {"stringValue": "default"}})
    return {}


def write_sharded(emu, n_small=10001, n_big=3):
    writes = []
    name = "projects/%s/databases/(default)/documents/" % PROJECT
    for i in range(n_small):
        writes.append({"update": {"name": name + "many/d%05d" % i,
                                  "fields": {"i": {"integerValue": str(i)}}}})
        if len(writes) == 500:
            emu.commit(PROJECT, writes)
            writes = []
    for i in range(n_big):
        writes.append({"update": {"name": name + "big/b%d" % i,
                                  "fields": {"s": {"stringValue": chr(65 + i) * 100000}}}})
    if writes:
        emu.commit(PROJECT, writes)
    return {}


CASES = {
    # case: (writer, database to export)
    "all-types": (write_all_types, "(default)"),
    "named-db": (write_named_db, "other"),
    "empty": (lambda emu: {}, "(default)"),
    "sharded": (write_sharded, "(default)"),
}


def make_case(case):
    writer, database = CASES[case]
    out_dir = os.path.join(GOLDEN, case)
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    emu = Emulator(log_prefix=os.path.join(tempfile.gettempdir(), "official-firestore-golden-" + case))
    emu.start()
    try:
        info = writer(emu)
        r = emu.export(PROJECT, out_dir, database=database, export_name=EXPORT_NAME)
        if r.status_code != 200:
            raise RuntimeError("export failed: %s %s" % (r.status_code, r.text))
        docs, missing = emu.dump_all(PROJECT, database)
        if case == "sharded":
            # keep the JSON small: only names + the small field
            for d in docs:
                if d["name"].split("/documents/")[1].startswith("big/"):
                    d["fields"]["s"]["stringValue"] = "<%d chars>" % len(d["fields"]["s"]["stringValue"])
        dump_json({
            "project": PROJECT,
            "database": database,
            "export_dir": case + "/" + EXPORT_NAME,
            "export_response": r.json(),
            "info": info,
            "missing_parents": missing,
            "documents": docs,
        }, os.path.join(GOLDEN, case + ".documents.json"))
        print("%s: %d documents, %d missing parents, export -> %s" % (
            case, len(docs), len(missing), out_dir))
    finally:
        emu.stop()


def main(argv):
    cases = argv or list(CASES)
    os.makedirs(GOLDEN, exist_ok=True)
    for c in cases:
        make_case(c)


if __name__ == "__main__":
    main(sys.argv[1:])
