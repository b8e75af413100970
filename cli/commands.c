/*
 * commands.c -- the command table: names, arguments, options, help text and examples.
 * Keeping them in one table is what makes `weir --help` complete by construction.
 */
#include "cli.h"

static const cli_opt NO_OPTS[] = {{NULL, 0, NULL, NULL}};

static const cli_opt INIT_OPTS[] = {
    {"catalog", 0, "URI", "keep the catalog in PostgreSQL: postgresql://[user@]host[:port]/db[?schema=NAME]"},
    {"warehouse", 0, "URI", "keep table data and metadata in object storage: s3://bucket/prefix (docs/storage.md)"},
    {NULL, 0, NULL, NULL}};

static const cli_opt IMPORT_OPTS[] = {
    {"table", 't', "T", "target table: NAME or NAMESPACE.NAME (required)"},
    {"branch", 'b', "B", "branch to commit on (default: main)"},
    {"mode", 0, "MODE", "create (default; the table must not exist), append or replace (it must exist)"},
    {"contract", 'c', "C.yml", "check the data against this contract first"},
    {"message", 'm', "M", "commit message"},
    {"format", 0, "FMT", "csv, parquet or jsonl (default: from the file extension)"},
    {"expect-head", 0, "HASH", "the commit this write builds on: refused (exit 4) if what it touches changed since"},
    {"delimiter", 0, "C", "CSV field separator, one character ('\\t' or tab for a tab; default: tab for .tsv, else comma)"},
    {"quote", 0, "C", "CSV quote character, escaped by doubling (default: \")"},
    {"date-format", 0, "FMT", "CSV dates in this strptime format, e.g. %d/%m/%Y (default: ISO; ambiguous dates are refused)"},
    {"timestamp-format", 0, "FMT", "CSV timestamps in this strptime format, e.g. \"%d/%m/%Y %H:%M:%S\""},
    {"max-line-size", 0, "BYTES", "longest CSV line accepted, in bytes (K, M or G suffix; default: 2M)"},
    {"register", 0, NULL, "add the Parquet FILEs to the existing table by reference (no copy), as one append"},
    {"evolve", 0, NULL, "let --contract evolve the table's schema (add, widen, document columns; docs/evolution.md)"},
    {NULL, 0, NULL, NULL}};

static const cli_opt PROTECT_OPTS[] = {
    {"require-check", 0, "PROJECT", "gate merges on this project's plan at the merged state (repeatable)"},
    {NULL, 0, NULL, NULL}};
static const cli_opt STATUS_OPTS[] = {
    {"ref", 'r', "R", "ref to read (default: main)"},
    {"now", 0, "TIME", "judge freshness at TIME, UTC ISO 8601 (2026-12-01T09:00:00Z; default: now)"},
    {NULL, 0, NULL, NULL}};

static const cli_opt REF_OPTS[] = {{"ref", 'r', "R", "ref to read (default: main)"}, {NULL, 0, NULL, NULL}};

static const cli_opt QUERY_OPTS[] = {
    {"ref", 'r', "R", "ref to read (default: main)"},
    {"format", 'f', "FMT", "table (default), csv, json or parquet"},
    {"output", 'o', "FILE", "write to FILE instead of standard output"},
    {"explain", 0, NULL, "do not run: show, per table, the data files read of the files total"},
    {NULL, 0, NULL, NULL}};

static const cli_opt TAG_CREATE_OPTS[] = {{"ref", 'r', "R", "the commit to name (default: main)"},
                                          {NULL, 0, NULL, NULL}};
static const cli_opt BRANCH_CREATE_OPTS[] = {{"from", 0, "R", "where the branch starts (default: main)"},
                                             {NULL, 0, NULL, NULL}};
static const cli_opt BRANCH_DELETE_OPTS[] = {
    {"force", 'f', NULL, "delete even if its commits are reachable from no other ref"}, {NULL, 0, NULL, NULL}};
static const cli_opt LOG_OPTS[] = {{"ref", 'r', "R", "where to start (default: main)"},
                                   {"max-count", 'n', "N", "show at most N commits"},
                                   {"table", 't', "T", "only the commits that changed table T, across its renames"},
                                   {NULL, 0, NULL, NULL}};
static const cli_opt MERGE_OPTS[] = {
    {"into", 0, "TARGET", "branch to merge into (required)"},
    {"message", 'm', "M", "merge commit message"},
    {"no-ff", 0, NULL, "create a merge commit even when a fast-forward is possible"},
    {"allow-partial", 0, NULL, "merge even if the source holds work of a failed run"},
    {"strategy", 0, "S", "resolve conflicting tables: source-wins or target-wins (default: fail)"},
    {"allow-breaking", 0, NULL, "merge even if it brings breaking contract changes (major version raised)"},
    {"project", 'p', "DIR", "name the models of this project that read what a contract change breaks"},
    {"expect-head", 0, "HASH", "the commit this write builds on: refused (exit 4) if what it touches changed since"},
    {"check", 0, "PROJECT", "merge only if this project plans at the merged state (repeatable; merge gate)"},
    {NULL, 0, NULL, NULL}};
static const cli_opt REVERT_OPTS[] = {
    {"to", 0, "R", "the ref whose version of the table to restore"},
    {"run", 0, "RUN_ID", "revert every table a run wrote, together"},
    {"branch", 'b', "B", "branch to commit on (default: main; with --run, the run's target branch)"},
    {"message", 'm', "M", "commit message"},
    {"allow-partial", 0, NULL, "revert one table of a run on its own"},
    {"allow-contract-change", 0, NULL, "let the revert change a table's stored contract too"},
    {"expect-head", 0, "HASH", "the commit this write builds on: refused (exit 4) if what it touches changed since"},
    {NULL, 0, NULL, NULL}};
static const cli_opt CHECK_OPTS[] = {{"ref", 'r', "B", "branch or ref to plan against (default: main)"},
                                     {"allow-breaking", 0, NULL, "accept breaking contract changes (exit 0)"},
                                     {"explain", 0, NULL, "also show what the plan proved: each SQL model's non-null, nullable and unproven columns"},
                                     {NULL, 0, NULL, NULL}};
static const cli_opt MCP_OPTS[] = {
    {"ref", 'r', "R", "the ref reads default to (default: main)"},
    {"protect", 0, "B", "also refuse writes to branch B (main always is)"},
    {NULL, 0, NULL, NULL}};
static const cli_opt CONTRACT_DIFF_OPTS[] = {
    {"table", 't', "T", "the table the contracts are of (default: from TABLE@REF)"},
    {"project", 'p', "DIR", "name the models of this project that read what breaks (default: ./ if a project)"},
    {"ref", 'r', "R", "plan the project at this ref (default: NEW's ref, or main)"},
    {"allow-breaking", 0, NULL, "exit 0 on a breaking change that raises the major version"},
    {NULL, 0, NULL, NULL}};
static const cli_opt RUN_OPTS[] = {
    {"ref", 'r', "B", "branch to run on (default: main)"},
    {"dry-run", 0, NULL, "plan and show what would run; run nothing"},
    {"timeout", 0, "SECONDS",
     "stop the run (publishing nothing) once its models have run SECONDS in all (default: no limit)"},
    {"expect-head", 0, "HASH",
     "run on this commit of the branch: refused (exit 4) if an input changed since"},
    {"retry", 0, "N",
     "if an input changed on the branch while the run ran, plan and run again, up to N times"},
    {"unsandboxed", 0, NULL, "run the project's Python without the model sandbox (recorded in the run)"},
    {NULL, 0, NULL, NULL}};

static const cli_opt SERVE_OPTS[] = {
    {"host", 0, "ADDR", "address to listen on (default: 127.0.0.1, loopback only)"},
    {"port", 'p', "N", "TCP port (default: 8181; 0 picks a free one, printed on the readiness line)"},
    {"threads", 0, "N", "worker threads (default: 4)"},
    {"vend-credentials", 0, NULL,
     "hand engines the server's own S3 credentials in loadTable (default: engines use their own)"},
    {NULL, 0, NULL, NULL}};
static const cli_opt TOKEN_CREATE_OPTS[] = {
    {"name", 0, "N", "the token's name, recorded as the author of its commits (default: token-<id>)"},
    {"read-only", 0, NULL, "the token may read, never write"},
    {"branches", 0, "PATTERN", "refs the token reaches, as a glob over branch and tag names (e.g. 'dev*')"},
    {NULL, 0, NULL, NULL}};
static const cli_opt COMPACT_OPTS[] = {
    {"branch", 'b', "B", "branch to commit on (default: main)"},
    {"target-file-size", 0, "SIZE", "size of each rewritten file, about (default 128MB; K, M, G are 1024-based)"},
    {"min-files", 0, "N", "compact only when the table has at least N small files (default 2)"},
    {"message", 'm', "TEXT", "commit message (default: \"compact TABLE: N files into M\")"},
    {"dry-run", 0, NULL, "say what would be rewritten, write nothing"},
    {NULL, 0, NULL, NULL}};
static const cli_opt DELETE_OPTS[] = {
    {"where", 0, "SQL", "the rows to delete: one SQL condition over a row (required; NULL keeps a row)"},
    {"branch", 'b', "B", "branch to commit on (default: main)"},
    {"expect-head", 0, "HASH", "the commit this write builds on: refused (exit 4) if what it touches changed since"},
    {"message", 'm', "TEXT", "commit message (default: \"delete from TABLE where ...: N rows\")"},
    {NULL, 0, NULL, NULL}};
static const cli_opt ALTER_OPTS[] = {
    {"add", 0, "\"NAME TYPE\"", "add an optional column (a new field id); repeatable, as every change"},
    {"rename", 0, "OLD NEW", "rename a column; it keeps its field id, so older files read under the new name"},
    {"drop", 0, "NAME", "drop a column (its field id is never reused)"},
    {"widen", 0, "NAME TYPE", "promote a column's type: Int32 to Int64, Float32 to Float64, Decimal precision"},
    {"doc", 0, "NAME TEXT", "set a column's doc (\"\" removes it)"},
    {"move", 0, "NAME AFTER", "move a column after column AFTER (\"\" or first: to the front)"},
    {"branch", 'b', "B", "branch to commit on (default: main)"},
    {"expect-head", 0, "HASH", "the commit this change builds on: refused (exit 4) if the table changed since"},
    {"message", 'm', "TEXT", "commit message (default: \"alter TABLE: <changes>\")"},
    {NULL, 0, NULL, NULL}};
static const cli_opt BRANCH_OPT[] = {{"branch", 'b', "B", "branch to commit on (default: main)"},
                                     {NULL, 0, NULL, NULL}};
static const cli_opt NAMESPACE_OPTS[] = {
    {"branch", 'b', "B", "branch to commit on (default: main)"},
    {"expect-head", 0, "HASH", "the commit this change was decided at: refused (exit 4) if the namespace changed since"},
    {NULL, 0, NULL, NULL}};

static const cli_opt TABLE_REGISTER_OPTS[] = {
    {"metadata", 0, "FILE_OR_URI", "the external table's metadata file, or its folder (required)"},
    {"branch", 'b', "B", "branch to commit on (default: main)"},
    {"contract", 'c', "C.yml", "check the table's data against this contract, and store it with the table"},
    {"message", 'm', "M", "commit message"},
    {NULL, 0, NULL, NULL}};
static const cli_opt GC_OPTS[] = {
    {"dry-run", 0, NULL, "list what would be deleted and marked; change nothing"},
    {"grace", 0, "DURATION", "keep unreferenced files younger than this (default: 1h; 0: none), e.g. 30m, 1h, 7d"},
    {"expire-before", 0, "TIME",
     "also expire commits older than TIME (2026-11-30, 2026-11-30T12:00:00Z, or an age such as 90d) that no "
     "branch head or tag names"},
    {NULL, 0, NULL, NULL}};
static const cli_opt PRUNE_OPTS[] = {
    {"runs", 0, NULL, "prune run branches (run/<id>); required"},
    {"failed", 0, NULL, "only branches of runs that failed or were interrupted"},
    {"older-than", 0, "DURATION", "only branches whose head last moved longer ago than this, e.g. 7d"},
    {"dry-run", 0, NULL, "list what would be deleted; delete nothing"},
    {NULL, 0, NULL, NULL}};

const cli_command CLI_COMMANDS[] = {
    {"init", "[PATH]", "create a lake (catalog, warehouse, and an empty first commit on main)",
     "PATH defaults to --lake, else $WEIR_LAKE, else ./.weir, which later commands find by\n"
     "walking up from the current folder. Refuses a folder that already holds a lake, a\n"
     "file, and a folder inside another lake. With --warehouse the tables' files go to an\n"
     "S3 bucket (endpoint and credentials from the AWS_* variables and ~/.aws files, never\n"
     "stored).\n"
     "With --catalog the catalog lives in a PostgreSQL database (one lake per schema,\n"
     "default public), so processes on many machines share the lake. Connection\n"
     "details follow libpq: PG* variables, and passwords from ~/.pgpass or $PGPASSWORD;\n"
     "a URI holding a password is refused, since the lake records the URI.",
     "weir init ./lake --catalog postgresql://weir@db.internal/lakes?schema=sales --warehouse s3://bucket/lake",
     INIT_OPTS, 0, 1, cmd_init},
    {"import", "FILE --table T", "load a CSV, Parquet or JSON-lines file into a table as one commit",
     "Column types are inferred by DuckDB's readers and mapped to weir types; without a\n"
     "contract every column is optional (as in every Iceberg writer). With --contract the\n"
     "data is checked first:\n"
     "a violation of a fail-mode rule writes nothing (exit 3); drop-mode rules move rows\n"
     "to TABLE__quarantine in the same commit; warn-mode rules only report.\n"
     "If another writer changed the table on the branch meanwhile, a replace is refused\n"
     "(exit 4: it would remove rows it never read), and an append lands on the newer\n"
     "version when its schema and contract are unchanged, else is validated again.\n"
     "With --register, FILE... are Parquet files appended to the existing table by\n"
     "reference (not copied), matched by Iceberg field id; an Iceberg metadata file is\n"
     "refused with a pointer to weir table register.",
     "weir import titanic.csv --table titanic --contract contracts/titanic.yml", IMPORT_OPTS, 1, CLI_MAX_POS,
     cmd_import},
    {"tables", "", "list tables at a ref with row counts", NULL, "weir tables --ref dev", REF_OPTS, 0, 0,
     cmd_tables},
    {"describe", "TABLE",
     "show a table at a ref: columns (type, required, doc, lineage, field id), comment, snapshot, "
     "metadata file, and the contract stored with it (name, version, every rule)",
     NULL, "weir describe titanic --json", REF_OPTS, 1, 1, cmd_describe},
    {"query", "SQL", "run read-only SQL over the tables as they are at a ref",
     "Tables are named NAMESPACE.NAME or, in the default namespace, NAME. --ref takes a\n"
     "branch, a tag, or a commit hash (time travel).",
     "weir query \"SELECT Pclass, count(*) FROM titanic GROUP BY 1\" --ref 1a2b3c4d", QUERY_OPTS, 1, 1,
     cmd_query},
    {"branch", "", "list branches with their head commits", NULL, "weir branch", NO_OPTS, 0, 0,
     cmd_branch_list},
    {"branch list", "", "list branches with their head commits", NULL, "weir branch list", NO_OPTS, 0, 0,
     cmd_branch_list},
    {"branch create", "NAME", "create a branch (copies no data)", NULL, "weir branch create dev --from main",
     BRANCH_CREATE_OPTS, 1, 1, cmd_branch_create},
    {"branch delete", "NAME", "delete a branch (never main)",
     "Refuses a branch whose head is not reachable from another branch or tag unless\n"
     "--force; its commits stay readable by hash either way.",
     "weir branch delete dev", BRANCH_DELETE_OPTS, 1, 1, cmd_branch_delete},
    {"tag", "", "list tags with the commits they name", NULL, "weir tag", NO_OPTS, 0, 0, cmd_tag_list},
    {"tag list", "", "list tags", NULL, "weir tag list", NO_OPTS, 0, 0, cmd_tag_list},
    {"tag create", "NAME", "name a commit; tags never move", NULL, "weir tag create v1 --ref main",
     TAG_CREATE_OPTS, 1, 1, cmd_tag_create},
    {"tag delete", "NAME", "delete a tag", NULL, "weir tag delete v1", NO_OPTS, 1, 1, cmd_tag_delete},
    {"log", "[REF]", "commits reachable from a ref (default main), newest first",
     "With --table, the table's own history: the commits that created, wrote, renamed or\n"
     "dropped it, followed across renames back to the commit that created it.",
     "weir log dev -n 5",
     LOG_OPTS, 0, 1, cmd_log},
    {"show", "REF", "one commit: fields, and per table the metadata file and snapshot", NULL,
     "weir show main~1", NO_OPTS, 1, 1, cmd_show},
    {"diff", "REF1 REF2", "tables added, removed and changed between two refs", NULL, "weir diff main dev",
     NO_OPTS, 2, 2, cmd_diff},
    {"merge", "SOURCE --into TARGET", "merge a ref into a branch (fast-forward or three-way at table level)",
     "On conflict every conflicting table is listed with what each side did, nothing is\n"
     "written, and the exit code is 4.",
     "weir merge dev --into main", MERGE_OPTS, 1, 1, cmd_merge},
    {"revert", "[TABLE]", "commit a table's version from another ref, or undo a whole run",
     "weir revert TABLE --to R puts TABLE back as it was at R (dropping it if it did not\n"
     "exist there); weir revert --run RUN_ID puts every table the run wrote back as it was\n"
     "before the run, in one commit.",
     "weir revert titanic --to main~1", REVERT_OPTS, 0, 1, cmd_revert},
    {"check", "PROJECT", "plan a pipeline project against the catalog and report every problem",
     "Finds SQL and Python models and contracts, builds the DAG, resolves inputs at the\n"
     "ref and checks that every step composes. Reads no data and writes nothing; exit 3\n"
     "when the project does not plan.",
     "weir check examples/titanic/project", CHECK_OPTS, 1, 1, cmd_check},
    {"run", "PROJECT", "check, then run a project transactionally on a branch",
     "Models run on a temporary branch run/<id> and are merged into the target only if\n"
     "every model and contract passed: all outputs appear at once or none do. If a table\n"
     "the run read changed on the target while it ran, nothing is published (exit 4);\n"
     "--retry N plans and runs again on the new head. Python models run in the model\n"
     "sandbox (docs/sandbox.md): they reach their inputs and output only, within their\n"
     "limits.",
     "weir run examples/titanic/project --ref main", RUN_OPTS, 1, 1, cmd_run},
    {"runs", "", "list runs with status, branch and result commit", NULL, "weir runs", NO_OPTS, 0, 0,
     cmd_runs_list},
    {"mcp", "", "serve the lake to agents: the Model Context Protocol over stdio",
     "Tools: list_tables, describe_table, query (read-only, at any ref, with a row limit),\n"
     "list_branches, list_commits, diff, create_branch, check_project, run_project (never on\n"
     "a protected branch); resources weir://tables and weir://tables/{table}. Runs the\n"
     "Python module weir.mcp_server ($WEIR_PYTHON, default python3) over the official MCP SDK.",
     "weir mcp --lake ./lake --ref main", MCP_OPTS, 0, 0, cmd_mcp},
    {"lsp", "", "a language server for weir projects (LSP over stdio)",
     "Diagnostics on open and save for SQL models, YAML contracts and Python schemas and\n"
     "models, from the planner of weir check; hover (a table's doc, a column's type,\n"
     "nullability, doc and lineage); completion of table and column names at --ref. Runs\n"
     "the Python module weir.lsp_server ($WEIR_PYTHON, default python3) on pygls.",
     "weir lsp --lake ./lake", REF_OPTS, 0, 0, cmd_lsp},
    {"contract diff", "OLD NEW", "classify what changing a contract breaks, and name the models that read it",
     "OLD and NEW are contract files (.yml, .yaml, .json) or TABLE@REF for a table's stored\n"
     "contract. Every change is breaking for consumers (column dropped or renamed, type\n"
     "narrowed, nullable where required, enum values changed, rules changed), for producers\n"
     "(required column added, enum values removed, type narrowed, rule tightened) or for\n"
     "nobody (nullable column added, type widened, docs). With a project, the models that\n"
     "read the affected columns are named, downstream ones too. Exit 3 on a breaking change\n"
     "unless --allow-breaking; a breaking change without a higher major version is exit 3\n"
     "either way.",
     "weir contract diff events@main contracts/events.yml --project pipeline/", CONTRACT_DIFF_OPTS, 2, 2,
     cmd_contract_diff},
    {"runs list", "", "list runs with status, branch and result commit", NULL, "weir runs list", NO_OPTS, 0,
     0, cmd_runs_list},
    {"serve", "", "serve the lake as an Apache Iceberg REST catalog (Spark, pyiceberg, DuckDB, Trino)",
     "The warehouse a client configures is a weir ref: warehouse=dev reads and writes branch\n"
     "dev; tags and commit hashes are read-only. Each engine commit becomes one weir commit,\n"
     "checked against the table's contract. Every request needs a bearer token (weir token\n"
     "create). Prints a readiness line with the address, then serves until Ctrl-C.\n"
     "See docs/serve.md for client configurations.",
     "weir serve --port 8181", SERVE_OPTS, 0, 0, cmd_serve},
    {"token create", "", "make a bearer token for weir serve (printed once; stored hashed)", NULL,
     "weir token create --name spark --branches 'dev*'", TOKEN_CREATE_OPTS, 0, 0, cmd_token_create},
    {"token list", "", "list tokens (names, access, refs; never the secrets)", NULL, "weir token list", NO_OPTS, 0, 0,
     cmd_token_list},
    {"token revoke", "NAME", "revoke a token for good", NULL, "weir token revoke spark", NO_OPTS, 1, 1,
     cmd_token_revoke},
    {"branch protect", "NAME", "let a branch change only by merges (no direct commits from CLI, SDK or REST)",
     "With --require-check PROJECT (repeatable) every merge into the branch is gated: it\n"
     "commits only if each project plans at the merged state and every table it changes\n"
     "holds data its contract accepts (exit 3 otherwise, nothing merged). A relative\n"
     "PROJECT is stored as given and resolved against the lake folder. The projects given\n"
     "replace those required before; weir branch unprotect drops them.",
     "weir branch protect main --require-check ../pipeline", PROTECT_OPTS, 1, 1, cmd_branch_protect},
    {"branch unprotect", "NAME", "let a protected branch take direct commits again", NULL,
     "weir branch unprotect main", NO_OPTS, 1, 1, cmd_branch_unprotect},
    {"namespace create", "NS", "create a namespace as a commit on a branch",
     "Namespaces are versioned: the namespace exists at the commits that have it, and a\n"
     "branch's namespaces reach another branch by merging.",
     "weir namespace create sales --branch dev", NAMESPACE_OPTS, 1, 1, cmd_namespace_create},
    {"namespace list", "", "list namespaces at a ref with their table counts", NULL, "weir namespace list",
     REF_OPTS, 0, 0, cmd_namespace_list},
    {"namespace drop", "NS", "drop an empty namespace as a commit (older commits keep it)", NULL,
     "weir namespace drop sales", NAMESPACE_OPTS, 1, 1, cmd_namespace_drop},
    {"table drop", "TABLE", "drop a table as a commit (older commits keep it)", NULL, "weir table drop old_titanic",
     BRANCH_OPT, 1, 1, cmd_table_drop},
    {"table rename", "TABLE NEW", "rename a table as a commit; it keeps its identity, contract and lineage", NULL,
     "weir table rename titanic passengers", BRANCH_OPT, 2, 2, cmd_table_rename},
    {"status", "", "every table with its last change and freshness SLA; exit 3 when one is breached",
     "A table's last change is the commit that wrote its current version; its SLA is its\n"
     "contract's sla: {freshness: \"1 hour\"}. --now judges freshness at another time.",
     "weir status --ref main", STATUS_OPTS, 0, 0, cmd_status},
    {"compact", "TABLE", "rewrite a table's small data files into large ones, as a commit that changes no row",
     "Files smaller than 3/4 of the target size are rewritten into files of about that size\n"
     "(same schema, field ids, codec and statistics), as one Iceberg \"replace\" snapshot;\n"
     "older commits keep their files. Appends committed meanwhile are kept; a write that\n"
     "replaced or deleted a rewritten file refuses the compaction (exit 4, nothing lost).",
     "weir compact events --target-file-size 128MB", COMPACT_OPTS, 1, 1, cmd_compact},
    {"table register", "TABLE --metadata FILE_OR_URI",
     "adopt an Iceberg table another engine wrote, its files referenced in place, as one commit",
     "FILE_OR_URI is the table's metadata file (path, file:// or s3:// URI) or, for a Hadoop\n"
     "catalog table, its folder (metadata/version-hint.text names the version). Nothing of\n"
     "the external table is modified: weir writes its own metadata listing the external\n"
     "data files. Refused before anything is written: another format version, a column of\n"
     "a type weir does not store, a partitioned table, delete files, nulls in a required\n"
     "column, data that breaks --contract.",
     "weir table register events --metadata /data/spark/db/events --contract events.yml",
     TABLE_REGISTER_OPTS, 1, 1, cmd_table_register},
    {"gc", "", "delete warehouse files no branch, tag or unexpired commit reaches",
     "Deletes data files, manifests, manifest lists, metadata files and temporary files\n"
     "that no commit reachable from a branch or tag references: orphans of interrupted or\n"
     "refused writes, and the files only deleted branches reached. Files younger than the\n"
     "grace period are kept (a writer may be about to commit them). Commits no ref reaches\n"
     "are marked collected; with --expire-before, older commits no head or tag names are\n"
     "expired: neither can be read afterwards, and weir log shows them so. See docs/gc.md.",
     "weir gc --dry-run", GC_OPTS, 0, 0, cmd_gc},
    {"branch prune", "--runs", "delete the run/<id> branches of finished runs",
     "A failed or interrupted run keeps its branch for inspection; this deletes such\n"
     "branches (never the branch of a run still running). Their files go at the next gc.",
     "weir branch prune --runs --failed --older-than 7d", PRUNE_OPTS, 0, 0, cmd_branch_prune},
    {"alter", "TABLE", "evolve a table's schema by Iceberg field id: add, rename, drop, widen, document, move columns",
     "Every change is applied in the order given, as one commit: a new Iceberg schema (older\n"
     "schemas stay in the metadata, so reads at older commits see their own), no data file\n"
     "rewritten. Renamed and widened columns keep their field ids; added columns are optional\n"
     "and take new ids. The stored contract follows. A bad change (a missing column, a name\n"
     "taken without regard to case, a type change that is not an Iceberg promotion) refuses\n"
     "the whole alter (exit 2), nothing written. See docs/evolution.md.",
     "weir alter events --rename col value --add \"score Float64\" --widen id Int64", ALTER_OPTS, 1, 1, cmd_alter},
    {"runs show", "RUN_ID", "one run: per-model timings, row counts, rule results, violations", NULL,
     "weir runs show 3f9c2a1b", NO_OPTS, 1, 1, cmd_runs_show},
    {"delete", "TABLE --where SQL", "delete the rows a SQL condition matches, as one commit (copy-on-write)",
     "The data files holding matching rows (those their column statistics do not rule out are\n"
     "read) are rewritten without them; the other files stay. One Iceberg \"overwrite\"\n"
     "snapshot; older commits still read the rows. The condition runs sealed (no file\n"
     "access). Refused when the table changed since the base (exit 4) or when the result\n"
     "breaks a table rule of its contract (exit 3). No matching row is no commit.",
     "weir delete events --where \"day < DATE '2024-01-01'\"", DELETE_OPTS, 1, 1, cmd_delete},
};

const int CLI_N_COMMANDS = (int)(sizeof CLI_COMMANDS / sizeof CLI_COMMANDS[0]);
