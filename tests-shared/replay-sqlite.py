"""Replays queries on databases rebuilt from SQL dumps with the stock Python sqlite3 module.

Reads a JSON list of jobs {"dump": sql script, "queries": [sql, ...]} from the file named on the
command line; writes a JSON list with, per job, one {"columns": [...], "rows": [[cell, ...]]} or
{"error": message} per query. Cells keep their storage class: {"int": "..."} (text, so that
integers beyond 2^53 survive), {"real": repr}, {"text": s}, {"blob": hex}, or null.
"""
import json
import sqlite3
import sys


def cell(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return {"int": str(int(value))}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, float):
        return {"real": repr(value)}
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    return {"text": value}


def run(job):
    connection = sqlite3.connect(":memory:")
    try:
        connection.executescript(job["dump"])
        results = []
        for query in job["queries"]:
            try:
                cursor = connection.execute(query)
                columns = [d[0] for d in cursor.description or []]
                results.append({"columns": columns, "rows": [[cell(v) for v in row] for row in cursor.fetchall()]})
            except sqlite3.Error as error:
                results.append({"error": str(error)})
        return results
    finally:
        connection.close()


with open(sys.argv[1], encoding="utf-8") as handle:
    jobs = json.load(handle)
json.dump({"sqlite_version": sqlite3.sqlite_version, "results": [run(job) for job in jobs]}, sys.stdout)
