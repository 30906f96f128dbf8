#!/usr/bin/env python3
"""Fleet analysis over many captures' exports (`rangetap export --exchanges`), with DuckDB.

    python3 -m pip install duckdb
    for c in captures/*.rtap; do rangetap export "$c" --exchanges "exports/$(basename "$c" .rtap).jsonl"; done
    tools/fleet-query.py exports/ [--parquet exchanges.parquet] [--json]

Reads every exports/*.jsonl as one table `ex` and prints the queries of docs/fleet.md: totals per
capture, cancels and refetched bytes per host, time to first byte percentiles, media segments per
rendition, CMCD sessions by sid across captures, the most frequent findings. --parquet also writes the whole table as Parquet; --json prints the results as JSON.
"""
import argparse
import json
import os
import sys

try:
    import duckdb
except ImportError:
    sys.exit("fleet-query.py: the duckdb module is missing: python3 -m pip install duckdb")

QUERIES = {
    # One row per capture: the figures `rangetap summary` prints on its last line.
    "per_capture": """
        SELECT capture,
               count(*)                                   AS exchanges,
               count(DISTINCT connection)                 AS connections,
               sum(bytesReceived)::BIGINT                 AS received_bytes,
               count(*) FILTER (WHERE cancelled)          AS cancelled,
               count(*) FILTER (WHERE outcome = 'failed') AS failed
        FROM ex GROUP BY capture ORDER BY capture""",
    # Where players give up and fetch twice, by host.
    "per_host": """
        SELECT host,
               count(*)                                         AS exchanges,
               round(avg(CASE WHEN cancelled THEN 1 ELSE 0 END), 4) AS cancel_rate,
               sum(refetchedBytes)::BIGINT                      AS refetched_bytes,
               sum(bytesReceived)::BIGINT                       AS received_bytes
        FROM ex GROUP BY host ORDER BY exchanges DESC, host""",
    # Time from request to response head, fleet-wide.
    "ttfb": """
        SELECT count(*)                                           AS exchanges,
               round(quantile_cont(responseMs - startMs, 0.5), 3)  AS p50_ms,
               round(quantile_cont(responseMs - startMs, 0.95), 3) AS p95_ms
        FROM ex WHERE responseMs IS NOT NULL""",
    # Media segments per rendition (rows the media mapping tied to a segment; see docs/media.md).
    "per_rendition": """
        SELECT CAST(mediaFormat AS VARCHAR)                                   AS format,
               CAST(rendition AS VARCHAR)                                     AS rendition,
               count(*)                                                       AS segments,
               count(*) FILTER (WHERE cancelled)                              AS cancelled,
               round(sum(CAST(mediaEnd AS DOUBLE) - CAST(mediaStart AS DOUBLE)), 3) AS media_seconds,
               sum(bytesReceived)::BIGINT                                     AS received_bytes
        FROM ex WHERE CAST(mediaKind AS VARCHAR) = 'segment'
        GROUP BY ALL ORDER BY format, rendition""",
    # The player's own account (CMCD, docs/cmcd.md) per session id, across every capture that
    # holds requests of the session: the sid is the join key between captures.
    "per_session": """
        SELECT CAST(cmcdSid AS VARCHAR)                                      AS sid,
               count(DISTINCT capture)                                       AS captures,
               count(*)                                                      AS requests,
               min(CAST(cmcdBl AS BIGINT))                                   AS min_buffer_ms,
               count(*) FILTER (WHERE CAST(cmcdBs AS BOOLEAN))               AS starved,
               round(avg(CAST(cmcdMtp AS BIGINT)))                           AS mean_mtp_kbps,
               sum(bytesDelivered)::BIGINT                                   AS delivered_bytes
        FROM ex WHERE cmcdSid IS NOT NULL
        GROUP BY ALL ORDER BY sid""",
    # The origin's findings (injected ones are in injectedFindings), most frequent first.
    "findings": """
        SELECT finding, count(*) AS exchanges
        FROM (SELECT unnest(findings) AS finding FROM ex)
        GROUP BY finding ORDER BY exchanges DESC, finding""",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="a directory of *.jsonl files written by rangetap export --exchanges")
    parser.add_argument("--parquet", help="also write every row to this Parquet file")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args()
    pattern = os.path.join(args.directory, "*.jsonl")
    con = duckdb.connect()
    try:
        con.execute(
            "CREATE TABLE ex AS SELECT * FROM read_json(?, format = 'newline_delimited', union_by_name = true)",
            [pattern],
        )
    except duckdb.Error as error:
        sys.exit(f"fleet-query.py: cannot read {pattern}: {error}")
    if args.parquet:
        con.execute(f"COPY ex TO '{args.parquet.replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")
    results = {}
    for name, sql in QUERIES.items():
        cursor = con.execute(sql)
        columns = [d[0] for d in cursor.description]
        results[name] = [dict(zip(columns, row)) for row in cursor.fetchall()]
    if args.json:
        print(json.dumps(results, default=str, sort_keys=True))
        return
    for name, rows in results.items():
        print(f"# {name}")
        if rows:
            print("\t".join(rows[0].keys()))
        for row in rows:
            print("\t".join(str(v) for v in row.values()))
        print()


if __name__ == "__main__":
    main()
