/*
 * weir.pml -- a Promela model of weir's versioning semantics (issue 10, "Serializable
 * lake"; the required behaviour is the project's versioning spec). model/README.md says
 * what is modelled and what is abstracted away; model/check.sh runs it.
 *
 *   spin -a weir.pml && cc -O1 -DSAFETY -DCOLLAPSE -o pan pan.c && ./pan -w20 -N AllProperties
 *
 * The world: three tables (S is read by a pipeline run, P and C are written by it),
 * four branches (main, the run's run/1, an agent's dev, and feed, cut from v0), one tag
 * (v0, the first commit), one transactional run and two other actors:
 *
 *   Runner  runs the pipeline S -> P -> C on main through run/1. It may be killed, or a
 *           model may fail, at any step.
 *   Writer  one write on main (import S, replace/append/re-contract P, replace C), or an
 *           append to P on feed, concurrent with everything else.
 *   Agent   two operations: writes on main, the Alloy scenario (branch dev from the run's
 *           branch, fix C there, merge dev into main), reverts of a table to the tag,
 *           the run's branch or the run's result, `revert --run`, with or without
 *           allow-partial, and merging feed into main (the append-aware merge).
 *
 * Every catalog transaction is one indivisible step (d_step; atomic where the step also
 * chooses what to do): actors interleave between transactions,
 * never inside one, as the catalog (one SQL transaction ending in a compare-and-swap of
 * the branch head) guarantees. A write that the implementation retries after losing the
 * compare-and-swap is modelled by one step that validates against the head current at
 * commit time: it succeeds exactly when some retry would, and the retry bound is
 * abstracted away.
 *
 * Each property is a named LTL formula `[] !viol_X` over a ghost flag that monitor code
 * sets, in the same atomic step, the moment the property is broken (so the error trail
 * ends at the offending transaction and names the flag). Broken variants remove one guard
 * each (-DBROKEN_..., and -DLITERAL_REVERT_RULE for the revert rule as the spec words
 * it); model/check.sh asserts that each one yields a counterexample to its property,
 * that the model with every guard has none, and that the witnessed events (-DWITNESS)
 * are reachable.
 */

/* ---- sizes ----------------------------------------------------------------------------- */

#define NT     3       /* tables */
#define S      0       /* source: read by the run's first model; imports replace it */
#define P      1       /* parent: written by the run's first model */
#define C      2       /* child: written by the run's second model */

#define NB     4       /* branches */
#define MAIN   0
#define RUNB   1       /* run/1 */
#define DEV    2       /* the agent's branch */
#define FEED   3       /* a branch cut from commit 0 that the Writer may append to */

#define TAG_V0 0       /* tag v0 = commit 0; a tag never moves (no operation writes it) */

#define MAXC   9       /* commits (ids are topological: parents have smaller ids) */
#define MAXV   10      /* table versions (Iceberg metadata files); vrows is a 16-bit set */
#define NONE   255

#define RUN    1       /* the run's id; 0 means "written by no run" */
#define NRUN   2       /* run ids 0..NRUN-1 */
#define R_NONE      0
#define R_RUNNING   1
#define R_SUCCEEDED 2
#define R_FAILED    3

/* How many operations the Writer and the Agent make (spin -DAGENT_OPS=3 ... for a deeper,
 * slower check). */
#ifndef WRITER_OPS
#define WRITER_OPS 1
#endif
#ifndef AGENT_OPS
#define AGENT_OPS  2
#endif

/* write modes */
#define W_REPLACE  1
#define W_APPEND   2
#define W_CONTRACT 3   /* a write that names a new contract (same rows, re-validated) */
#define W_COMPACT  4   /* a compaction: the table's files rewritten, no row changed; its read
                        * set is exactly the files it rewrites */

/* results of a transaction (h_res) */
#define OK        0
#define UPTODATE  1    /* merge: nothing to do; revert: table already at the target */
#define CONFLICT  2    /* merge conflict, or the table changed since the operation's base */
#define PARTIAL   3    /* refused by the aborted-work / run-atomicity rules */
#define STALE     4    /* run: a table of its read set changed on the target */
#define REFUSED   5    /* any other refusal (contract would regress, no such ref, ...) */

/* ---- the catalog ------------------------------------------------------------------------ */

/* Commits: immutable once made (entries are only ever written at index nc). A commit's
 * parents are kept as its ancestor set, which is all the model needs of them. */
byte  ctab[MAXC*NT];   /* table -> version (metadata file) */
short canc[MAXC];      /* ancestors-or-self, a bit set of commit ids */
byte  nc;

/* Ghosts kept per commit entry (not part of weir's catalog, only of the checking):
 *   ckill  row batches this entry's history knowingly removed: a replace or revert
 *          removes what it read, nothing else. seen = rows held + rows knowingly removed.
 *   crev   the run whose version a revert moved this table off (0: not so), carried by
 *          merges with the entry and cleared by any other write of the table.
 *   cpx    the entry was put there by an allow-partial revert (carried and cleared alike). */
short ckill[MAXC*NT];
byte  crev[MAXC*NT];
bool  cpx[MAXC*NT];    /* ghost: this entry was put there by an allow-partial revert */

/* Table versions. vrun is the provenance weir records for each version (the run that
 * wrote it); the failed-run mark is that run's status. */
short vrows[MAXV];     /* ghost: row batches held (batch i = the rows version i's write added) */
short vanc[MAXV];      /* the versions this one descends from by appends alone (itself
                        * included): what weir reads from the Iceberg snapshot chain (every
                        * snapshot since an "append", or an append-aware merge's) */
byte  vcon[MAXV];      /* stored contract version */
short vcanc[MAXV];     /* the versions this one descends from by appends and compactions
                        * (itself included): a merge target may have been compacted */
byte  vsame[MAXV];     /* the version whose rows this one holds through compactions alone
                        * (itself when its write changed rows): what weir reads from the
                        * snapshot chain (every snapshot since a compaction's "replace") */
bool  vok[MAXV];       /* ghost: every row validated against vcon */
byte  vrun[MAXV];
bool  vexempt[MAXV];   /* ghost: entered main through an allow-partial operation */
byte  nv;

byte  head[NB];
bool  alive[NB];

/* The run record: status, base H, result commit, versions written. */
byte  rstat[NRUN];
byte  rbase = NONE;
byte  rpub = NONE;
byte  rver[NT];        /* version the run wrote per table, NONE if it did not write it */
byte  rread[NT];       /* ghost: per table, the version the run read on run/1 (S: model P's
                        * input; P, C: the version whose stored contract the output was
                        * validated against); NONE if not read */

/* One flag per property, set by the monitors below. */
bool viol_NoLostUpdate;
bool viol_NoStalePublication;
bool viol_MainCleanFromFailedRuns;
bool viol_RunAtomicityAcrossRevert;
bool viol_ContractNeverRegresses;
bool viol_RowsMatchContract;
bool viol_RunPublishesAllOutputs;
bool viol_CompactionChangesNoRow;

ltl NoLostUpdate              { [] !viol_NoLostUpdate }
ltl NoStalePublication        { [] !viol_NoStalePublication }
ltl MainCleanFromFailedRuns   { [] !viol_MainCleanFromFailedRuns }
ltl RunAtomicityAcrossRevert  { [] !viol_RunAtomicityAcrossRevert }
ltl ContractNeverRegresses    { [] !viol_ContractNeverRegresses }
ltl RowsMatchContract         { [] !viol_RowsMatchContract }
ltl RunPublishesAllOutputs    { [] !viol_RunPublishesAllOutputs }
ltl CompactionChangesNoRow    { [] !viol_CompactionChangesNoRow }
/* Their conjunction, for one search of the correct model (each is an invariant, so one
 * search of the conjunction proves them all). */
ltl AllProperties { [] !(viol_NoLostUpdate || viol_NoStalePublication ||
                         viol_MainCleanFromFailedRuns || viol_RunAtomicityAcrossRevert ||
                         viol_ContractNeverRegresses || viol_RowsMatchContract ||
                         viol_RunPublishesAllOutputs || viol_CompactionChangesNoRow) }

/* Witnesses (built with -DWITNESS only): events the correct model must be able to reach,
 * each as a formula that must FAIL. They keep the properties from holding vacuously, by
 * a model in which the guards are never exercised. */
#ifdef WITNESS
#define SAW(x) x = 1
bool saw_PublishAfterMainMoved, saw_PublishRefusedStale, saw_PublishRefusedConflict;
bool saw_LeakRefused, saw_PartialMergeAccepted, saw_AppendRebased, saw_AppendRefused;
bool saw_ReplaceConflict, saw_RevertRefusedRun, saw_RevertRefusedContract, saw_RevertRun;
bool saw_AppendsMergedOverCompaction;
bool saw_AppendsMerged, saw_CompactRebased, saw_CompactRefused, saw_WriteOverCompaction;
ltl Witness_PublishAfterMainMoved   { [] !saw_PublishAfterMainMoved }
ltl Witness_PublishRefusedStale     { [] !saw_PublishRefusedStale }
ltl Witness_PublishRefusedConflict  { [] !saw_PublishRefusedConflict }
ltl Witness_LeakRefused             { [] !saw_LeakRefused }
ltl Witness_PartialMergeAccepted    { [] !saw_PartialMergeAccepted }
ltl Witness_AppendRebased           { [] !saw_AppendRebased }
ltl Witness_AppendRefused           { [] !saw_AppendRefused }
ltl Witness_ReplaceConflict         { [] !saw_ReplaceConflict }
ltl Witness_RevertRefusedRun        { [] !saw_RevertRefusedRun }
ltl Witness_RevertRefusedContract   { [] !saw_RevertRefusedContract }
ltl Witness_RevertRun               { [] !saw_RevertRun }
ltl Witness_AppendsMerged           { [] !saw_AppendsMerged }
ltl Witness_AppendsMergedOverCompaction { [] !saw_AppendsMergedOverCompaction }
ltl Witness_CompactRebased          { [] !saw_CompactRebased }
ltl Witness_CompactRefused          { [] !saw_CompactRefused }
ltl Witness_WriteOverCompaction     { [] !saw_WriteOverCompaction }
#else
#define SAW(x) skip
#endif

/* Scratch for the inside of one atomic step. Hidden: not part of the state, so they must
 * never carry a value from one step to the next. */
hidden byte h_i, h_u, h_new, h_nv, h_cur, h_old, h_s, h_g, h_b, h_v, h_tv, h_r, h_res;
hidden byte h_ff, h_ours, h_theirs, h_any, h_take, h_comb;

#define E(c, t)      ((c)*NT + (t))
#define SEEN(c, t)   (vrows[ctab[E(c, t)]] | ckill[E(c, t)])
#define DONE(r)      ((r) == 0 || rstat[r] == R_SUCCEEDED)  /* written by no run, or a run that succeeded */

/* ---- monitors -------------------------------------------------------------------------- */

/* main moved from commit old to commit new. */
inline monitor_move(old, new) {
  for (h_i : 0 .. NT-1) {
    /* NoLostUpdate: main never forgets rows it held, except rows a write that had read
     * them chose to remove. */
    if
    :: (SEEN(new, h_i) & SEEN(old, h_i)) != SEEN(old, h_i) -> viol_NoLostUpdate = 1
    :: else
    fi;
    /* ContractNeverRegresses: a table's stored contract on main only moves forward. */
    if
    :: vcon[ctab[E(new, h_i)]] < vcon[ctab[E(old, h_i)]] -> viol_ContractNeverRegresses = 1
    :: else
    fi
  }
}

/* State properties of main, checked after every transaction. */
inline monitor_state() {
  h_g = head[MAIN];
  for (h_i : 0 .. NT-1) {
    h_v = ctab[E(h_g, h_i)];
    /* MainCleanFromFailedRuns: no version on main was written by a run that has not
     * succeeded (running counts: its other tables are not there yet), unless it came
     * through allow-partial. */
    if
    :: !DONE(vrun[h_v]) && !vexempt[h_v] -> viol_MainCleanFromFailedRuns = 1
    :: else
    fi;
    /* RowsMatchContract: every row on main was validated against its table's contract. */
    if
    :: !vok[h_v] -> viol_RowsMatchContract = 1
    :: else
    fi
  }
  /* RunAtomicityAcrossRevert: never one of the run's tables at the run's version while
   * another was moved off the run's version by a revert (allow-partial ones excepted). */
  if
  :: rstat[RUN] == R_SUCCEEDED && !cpx[E(h_g, P)] && !cpx[E(h_g, C)] &&
     ((ctab[E(h_g, P)] == rver[P] && crev[E(h_g, C)] == RUN) ||
      (ctab[E(h_g, C)] == rver[C] && crev[E(h_g, P)] == RUN)) -> viol_RunAtomicityAcrossRevert = 1
  :: else
  fi
}

/* ---- tracing (shown by `spin -t`, ignored by pan) ------------------------------------------ */

inline say_table(t) {
  if
  :: t == S -> printf("S")
  :: t == P -> printf("P")
  :: t == C -> printf("C")
  fi
}

inline say_res() {
  if
  :: h_res == OK -> printf("ok")
  :: h_res == UPTODATE -> printf("nothing to do")
  :: h_res == CONFLICT -> printf("conflict: changed since the base")
  :: h_res == PARTIAL -> printf("refused: aborted work / run atomicity")
  :: h_res == STALE -> printf("refused: read set changed")
  :: h_res == REFUSED -> printf("refused")
  fi
}

/* ---- building blocks --------------------------------------------------------------------- */

/* A new commit h_new whose first parent is par (and second par2, or NONE), with par's map. */
inline mk_commit(par, par2) {
  assert(nc < MAXC);
  h_new = nc;
  nc++;
  canc[h_new] = canc[par] | (1 << h_new);
  if
  :: par2 != NONE -> canc[h_new] = canc[h_new] | canc[par2]
  :: else
  fi;
  for (h_i : 0 .. NT-1) {
    ctab[E(h_new, h_i)] = ctab[E(par, h_i)];
    ckill[E(h_new, h_i)] = ckill[E(par, h_i)];
    crev[E(h_new, h_i)] = crev[E(par, h_i)];
    cpx[E(h_new, h_i)] = cpx[E(par, h_i)]
  }
}

/* A new version h_nv (fields set by the caller). */
inline mk_version() {
  assert(nv < MAXV);
  h_nv = nv;
  nv++;
  vsame[h_nv] = h_nv;
  vcanc[h_nv] = (1 << h_nv)
}

/* Moves branch b to h_new; when b is main, runs the move monitor. */
inline move(b) {
  h_old = head[b];
  head[b] = h_new;
  if
  :: b == MAIN -> monitor_move(h_old, h_new)
  :: else
  fi
}

/* Merge src into main (`weir merge`, and a run's publication). part: allow-partial.
 * runid: the run that publishes (its own versions are exempt from the aborted-work rule),
 * 0 for a plain merge. base: the commit to merge three-way against, NONE for the merge
 * base of the two heads. comb: the append-aware merge (a user's merge; a run's
 * publication does not combine): a table both sides changed since the base is combined
 * into a new version holding both sides' rows when each side descends from the base's
 * version by appends alone. Result in h_res; on OK, main has moved. */
#define APPENDS(v, b) ((vanc[v] & (1 << (b))) != 0)
#define APPENDS_OR_COMPACTED(v, b) ((vcanc[v] & (1 << (b))) != 0)
inline merge_into_main(src, part, runid, base, comb) {
  h_s = head[src];
  h_g = head[MAIN];
  h_res = OK;
  h_comb = 0;                                              /* bit set of tables to combine */
  if
  :: base == NONE && (canc[h_g] & (1 << h_s)) -> h_res = UPTODATE  /* source already reachable */
  :: else ->
     /* Merge base: the common ancestor with the highest id. Ids are topological, so it
      * is a nearest one, and among several nearest the latest (the spec's tie-break).
      * Commit 0 is an ancestor of every commit, so the search ends. */
     if
     :: base == NONE ->
        h_b = MAXC - 1;
        do
        :: (canc[h_g] & canc[h_s] & (1 << h_b)) -> break
        :: else -> h_b--
        od
     :: else -> h_b = base
     fi;
     h_ff = ((canc[h_s] & (1 << h_g)) != 0);              /* target is an ancestor: fast-forward */
     h_take = 0;                                          /* tables to take from the source */
     for (h_i : 0 .. NT-1) {
       h_ours = (ctab[E(h_g, h_i)] != ctab[E(h_b, h_i)]);
       h_theirs = (ctab[E(h_s, h_i)] != ctab[E(h_b, h_i)]);
       if
       :: h_ours && h_theirs && ctab[E(h_g, h_i)] != ctab[E(h_s, h_i)] ->
#ifdef BROKEN_MERGE_ANY_CHANGE
          if                                   /* combines whatever both sides did */
          :: comb -> h_comb = h_comb | (1 << h_i); h_take = 1
          :: else -> h_res = CONFLICT
          fi
#else
          if
          :: comb && APPENDS_OR_COMPACTED(ctab[E(h_g, h_i)], ctab[E(h_b, h_i)]) &&
             APPENDS(ctab[E(h_s, h_i)], ctab[E(h_b, h_i)]) ->
             h_comb = h_comb | (1 << h_i); h_take = 1
          :: else -> h_res = CONFLICT
          fi
#endif
       :: h_theirs && !h_ours -> h_take = 1
       :: else
       fi;
       /* Aborted work: a version the source side brings (changed since the base) that a
        * run other than the publishing one wrote and that did not succeed. */
       h_v = ctab[E(h_s, h_i)];
#ifndef BROKEN_NO_ABORTED_CHECK
       if
       :: h_res == OK && h_theirs && !part && vrun[h_v] != runid && !DONE(vrun[h_v]) ->
          h_res = PARTIAL;
          SAW(saw_LeakRefused)
       :: else
       fi
#endif
     }
     if
     :: h_res == OK ->
        /* allow-partial: what it brings of unfinished runs is exempt from now on */
        for (h_i : 0 .. NT-1) {
          h_v = ctab[E(h_s, h_i)];
          if
          :: part && ctab[E(h_s, h_i)] != ctab[E(h_b, h_i)] && vrun[h_v] != runid && !DONE(vrun[h_v]) ->
             vexempt[h_v] = 1;
             SAW(saw_PartialMergeAccepted)
          :: else
          fi
        }
        if
        :: !h_take && !h_ff -> h_res = UPTODATE          /* (a given base, source already in) */
        :: h_ff -> h_new = h_s                            /* fast-forward: no new commit */
        :: else ->
           mk_commit(h_g, h_s);                           /* parents (target, source) */
           for (h_i : 0 .. NT-1) {
             if
             :: ctab[E(h_s, h_i)] != ctab[E(h_b, h_i)] && ctab[E(h_g, h_i)] == ctab[E(h_b, h_i)] ->
                ctab[E(h_new, h_i)] = ctab[E(h_s, h_i)];  /* changed on the source side only */
                crev[E(h_new, h_i)] = crev[E(h_s, h_i)];
                cpx[E(h_new, h_i)] = cpx[E(h_s, h_i)]
             :: (h_comb & (1 << h_i)) != 0 ->            /* both appended: one new version */
                mk_version();
                h_v = ctab[E(h_g, h_i)];
                h_tv = ctab[E(h_s, h_i)];
                vrows[h_nv] = vrows[h_v] | vrows[h_tv];
                vcon[h_nv] = vcon[h_v];
                /* the source's rows were validated against its contract */
                vok[h_nv] = vok[h_v] && vok[h_tv] && vcon[h_v] == vcon[h_tv];
                vrun[h_nv] = runid;
                vanc[h_nv] = vanc[h_v] | vanc[h_tv] | (1 << h_nv);
                vcanc[h_nv] = vcanc[h_v] | vanc[h_tv] | (1 << h_nv);
                if
                :: !APPENDS(h_v, ctab[E(h_b, h_i)]) -> SAW(saw_AppendsMergedOverCompaction)
                :: else
                fi;
                ctab[E(h_new, h_i)] = h_nv;
                crev[E(h_new, h_i)] = 0;
                cpx[E(h_new, h_i)] = 0;
                SAW(saw_AppendsMerged)
             :: else                                      /* target's, or the same on both */
             fi;
             ckill[E(h_new, h_i)] = ckill[E(h_g, h_i)] | ckill[E(h_s, h_i)]
           }
        fi;
        if
        :: h_res == OK -> move(MAIN)
        :: else
        fi
     :: else
     fi
  fi
}

/* ---- writes: base, read set, validation ---------------------------------------------- */

/* Phase 1 of a write of table t on branch b: take the base and read (or validate against)
 * the table there. */
inline write_begin(b, t, base, rv, rcon) {
  base = head[b];
  rv = ctab[E(base, t)];
  rcon = vcon[rv]
}

/* Phase 2: one catalog transaction. mode: W_REPLACE (rows computed from what was read),
 * W_APPEND (blind: rows added to whatever the table holds), W_CONTRACT, W_COMPACT (the
 * files read rewritten: rebased when the head's version still holds every one of them,
 * i.e. descends from the version read by appends alone, else refused). */
inline write_commit(b, t, mode, base, rv, rcon) {
#ifdef BROKEN_NO_CAS
  h_cur = base;              /* builds on the base and overwrites the head, whatever it is now */
#else
  h_cur = head[b];           /* compare-and-swap: the commit's parent is the head it replaces */
#endif
  h_v = ctab[E(h_cur, t)];
  h_res = OK;
  if
  :: mode == W_APPEND ->
     skip;
     /* A blind append rebases onto a newer head only if the table's contract is the one
      * its rows were validated against. */
#ifndef BROKEN_APPEND_ANY_CONTRACT
     if
     :: h_v != rv && vcon[h_v] != rcon -> h_res = CONFLICT; SAW(saw_AppendRefused)
     :: else
     fi
#endif
  :: mode == W_COMPACT ->
#ifndef BROKEN_COMPACT_NO_FILE_CHECK
     if
     :: (vanc[h_v] & (1 << rv)) == 0 -> h_res = CONFLICT; SAW(saw_CompactRefused)
     :: else
     fi
#endif
  :: else ->
     /* replace and contract changes conflict if the table changed since the base, unless
      * only compactions changed it (the same rows) */
#ifndef BROKEN_NO_TABLE_CHECK
     if
     :: h_v != rv && vsame[h_v] != vsame[rv] -> h_res = CONFLICT; SAW(saw_ReplaceConflict)
     :: h_v != rv && vsame[h_v] == vsame[rv] -> SAW(saw_WriteOverCompaction)
     :: else
     fi
#endif
  fi;
  if
  :: h_res == OK ->
     mk_version();
     vrun[h_nv] = 0;
     vok[h_nv] = 1;
     mk_commit(h_cur, NONE);
     if
     :: mode == W_REPLACE ->
        vrows[h_nv] = (1 << h_nv);
        vanc[h_nv] = (1 << h_nv);
        vcon[h_nv] = rcon;
        ckill[E(h_new, t)] = ckill[E(h_new, t)] | vrows[rv]
     :: mode == W_APPEND ->
#ifdef BROKEN_NO_TABLE_CHECK
        vrows[h_nv] = vrows[rv] | (1 << h_nv);    /* new metadata computed from the stale snapshot */
#else
        vrows[h_nv] = vrows[h_v] | (1 << h_nv);   /* appended onto the current snapshot */
#endif
        vcon[h_nv] = vcon[h_v];
        vanc[h_nv] = vanc[h_v] | (1 << h_nv);
        vcanc[h_nv] = vcanc[h_v] | (1 << h_nv);
        vok[h_nv] = vok[h_v] && (rcon == vcon[h_v])
     :: mode == W_CONTRACT ->
        vrows[h_nv] = vrows[rv];
        vanc[h_nv] = (1 << h_nv);
        vcon[h_nv] = rcon + 1
     :: mode == W_COMPACT ->
        /* an Iceberg replace over the head's version: its files minus the ones read, plus
         * their rewrite. Not an append (vanc), the same rows (vsame), the same contract. */
#ifdef BROKEN_COMPACT_FROM_BASE
        vrows[h_nv] = vrows[rv];                   /* the table as read, over the head */
#elif defined(BROKEN_COMPACT_NO_FILE_CHECK)
        vrows[h_nv] = vrows[h_v] | vrows[rv];      /* the rewritten files come back */
#else
        vrows[h_nv] = vrows[h_v];
#endif
        vanc[h_nv] = (1 << h_nv);
        vcanc[h_nv] = vcanc[h_v] | (1 << h_nv);
        vsame[h_nv] = vsame[h_v];
        vcon[h_nv] = vcon[h_v];
        vok[h_nv] = vok[h_v];
        if
        :: vrows[h_nv] != vrows[h_v] -> viol_CompactionChangesNoRow = 1
        :: else
        fi;
        if
        :: h_v != rv -> SAW(saw_CompactRebased)
        :: else
        fi
     fi;
     ctab[E(h_new, t)] = h_nv;
     crev[E(h_new, t)] = 0;
     cpx[E(h_new, t)] = 0;
     if
     :: mode == W_APPEND && h_v != rv -> SAW(saw_AppendRebased)
     :: else
     fi;
     move(b)
  :: else
  fi
}

/* ---- reverts ------------------------------------------------------------------------------ */

/* `revert t --to R --branch main`, phase 2 (phase 1 is write_begin on main plus resolving
 * R). part: allow-partial. */
inline revert_commit(t, R, part, base, rv) {
  h_cur = head[MAIN];
  h_v = ctab[E(h_cur, t)];
  h_tv = ctab[E(R, t)];
  h_res = OK;
  if
  :: h_v != rv -> h_res = CONFLICT            /* the table changed since the revert's base */
  :: else -> if
             :: h_v == h_tv -> h_res = UPTODATE
             :: else
             fi
  fi;
  /* The tables a run published belong together: the current version was written by a run
   * whose other tables are still at its versions. */
#ifndef BROKEN_NO_RUN_REVERT_GUARD
  h_r = vrun[h_v];
  if
  :: h_res == OK && !part && h_r != 0 ->
     for (h_u : 0 .. NT-1) {
       if
       :: h_u != t && rver[h_u] != NONE && ctab[E(h_cur, h_u)] == rver[h_u] -> h_res = PARTIAL; SAW(saw_RevertRefusedRun)
       :: else
       fi
     }
  :: else
  fi;
#endif
  /* The target version was written by a run: refused if that run did not succeed (that
   * would publish its work table by table), and -- the rule the spec's wording misses
   * (see LITERAL_REVERT_RULE) -- refused if that run's other tables are no longer at its
   * versions (that would put one table of the run back on its own). */
  h_r = vrun[h_tv];
  if
  :: h_res == OK && !part && h_r != 0 ->
#ifndef BROKEN_NO_REVERT_TARGET_CHECK
     if
     :: !DONE(h_r) -> h_res = PARTIAL
     :: else
     fi;
#endif
#ifndef LITERAL_REVERT_RULE
     for (h_u : 0 .. NT-1) {
       if
       :: h_res == OK && h_u != t && rver[h_u] != NONE && ctab[E(h_cur, h_u)] != rver[h_u] -> h_res = PARTIAL
       :: else
       fi
     }
#endif
     skip
  :: else
  fi;
  /* No write restores an older contract (allow-partial does not change that). */
#ifndef BROKEN_REVERT_RESTORES_CONTRACT
  if
  :: h_res == OK && vcon[h_tv] < vcon[h_v] -> h_res = REFUSED; SAW(saw_RevertRefusedContract)
  :: else
  fi;
#endif
  if
  :: h_res == OK ->
     mk_commit(h_cur, NONE);
     ctab[E(h_new, t)] = h_tv;
     ckill[E(h_new, t)] = ckill[E(h_new, t)] | vrows[h_v];   /* it read what it removes */
     if
     :: !part && vrun[h_v] != 0 -> crev[E(h_new, t)] = vrun[h_v]
     :: else -> crev[E(h_new, t)] = 0
     fi;
     cpx[E(h_new, t)] = part;
     if
     :: part && !DONE(vrun[h_tv]) -> vexempt[h_tv] = 1
     :: else
     fi;
     move(MAIN)
  :: else
  fi
}

/* Puts table t back at the run's base version on top of h_cur (part of `revert --run`). */
inline revert_run_table(t) {
  h_v = ctab[E(h_cur, t)];
  if
  :: rver[t] != NONE && h_v != ctab[E(rbase, t)] ->
     ctab[E(h_new, t)] = ctab[E(rbase, t)];
     ckill[E(h_new, t)] = ckill[E(h_new, t)] | vrows[h_v];
     if
     :: vrun[h_v] == RUN -> crev[E(h_new, t)] = RUN
     :: else -> crev[E(h_new, t)] = 0
     fi;
     cpx[E(h_new, t)] = 0
  :: else
  fi
}

/* The checks of `revert --run 1 --branch main` against base (the head when it started)
 * for the tables in [lo, hi]; h_any: something to do. */
inline revert_run_check(lo, hi, base) {
  h_cur = head[MAIN];
  h_res = OK;
  h_any = 0;
  if
  :: rstat[RUN] != R_SUCCEEDED -> h_res = REFUSED       /* only a published run is reverted */
  :: else
  fi;
  for (h_u : lo .. hi) {
    if
    :: h_res == OK && rver[h_u] != NONE ->
       if
       :: ctab[E(h_cur, h_u)] != ctab[E(base, h_u)] -> h_res = CONFLICT
       :: else
       fi;
#ifndef BROKEN_REVERT_RESTORES_CONTRACT
       if
       :: vcon[ctab[E(rbase, h_u)]] < vcon[ctab[E(h_cur, h_u)]] -> h_res = REFUSED
       :: else
       fi;
#endif
       if
       :: ctab[E(h_cur, h_u)] != ctab[E(rbase, h_u)] -> h_any = 1
       :: else
       fi
    :: else
    fi
  }
}

/* ---- the actors ------------------------------------------------------------------------- */

/* One model of the run: reads its input on run/1, writes table t there (a replace,
 * validated against t's stored contract on run/1). */
inline run_model(t) {
  h_cur = head[RUNB];
  h_v = ctab[E(h_cur, t)];
  rread[t] = h_v;
  mk_version();
  vrows[h_nv] = (1 << h_nv);
  vanc[h_nv] = (1 << h_nv);
  vcon[h_nv] = vcon[h_v];
  vok[h_nv] = 1;
  vrun[h_nv] = RUN;
  mk_commit(h_cur, NONE);
  ctab[E(h_new, t)] = h_nv;
  ckill[E(h_new, t)] = ckill[E(h_new, t)] | vrows[h_v];
  crev[E(h_new, t)] = 0;
  cpx[E(h_new, t)] = 0;
  rver[t] = h_nv;
  move(RUNB);
  printf("@@ Runner: model ");
  say_table(t);
  printf(" writes version %d on run/1 -> commit %d\n", h_nv, h_new);
  monitor_state()
}

/* `weir run` of the pipeline S -> P -> C with target main. */
proctype Runner() {
  /* 1. The run record, and run/1 at main's head H. */
  d_step {
    rbase = head[MAIN];
    rstat[RUN] = R_RUNNING;
    head[RUNB] = rbase;
    alive[RUNB] = 1;
    printf("@@ Runner: run 1 starts, run/1 at main's head %d\n", rbase);
    monitor_state()
  }
  if
  :: skip
  :: goto killed
  :: goto failed              /* model P fails */
  fi;
  /* 2. Model P reads S on run/1 and writes P there. */
  d_step {
    rread[S] = ctab[E(head[RUNB], S)];
    run_model(P)
  }
  if
  :: skip
  :: goto killed
  :: goto failed              /* model C fails: run/1 holds P but not C */
  fi;
  /* 3. Model C reads P on run/1 and writes C there. */
  d_step { run_model(C) }
  if
  :: skip
  :: goto killed
  fi;
  /* 4. Publish: in one transaction, validate the read set and the outputs against the
   * run's base H, merge run/1 into main and mark the run succeeded; or fail the run
   * (exit 4), main untouched. */
  d_step {
    h_g = head[MAIN];
    h_res = OK;
#ifndef BROKEN_NO_READSET_CHECK
    /* the read set: S, the input of model P, unchanged on main since H */
    if
    :: ctab[E(h_g, S)] != ctab[E(rbase, S)] -> h_res = STALE; SAW(saw_PublishRefusedStale)
    :: else
    fi;
#endif
    /* NoStalePublication, in its own terms: every table the run read is, on main, the
     * version it read (or already the run's own output). */
    h_any = 0;
    for (h_u : 0 .. NT-1) {
      if
      :: rread[h_u] != NONE && ctab[E(h_g, h_u)] != rread[h_u] && ctab[E(h_g, h_u)] != rver[h_u] -> h_any = 1
      :: else
      fi
    }
    if
    :: h_res == OK ->
       /* The merge is three-way against the run's base H: each output replaces its table,
        * so it conflicts if the table changed on main since H (unless main already has
        * the run's version), and every output lands. The merge base of the two heads is
        * not enough: once part of run/1 reached main (allow-partial), it is past H, and a
        * later change on main to a table the run wrote would silently win over the run's
        * output (BROKEN_MERGE_BASE_ONLY). */
#ifdef BROKEN_MERGE_BASE_ONLY
       merge_into_main(RUNB, 0, RUN, NONE, 0)
#else
       merge_into_main(RUNB, 0, RUN, rbase, 0)
#endif
    :: else
    fi;
    if
    :: h_res == UPTODATE -> h_res = OK                   /* main already holds every output */
    :: else
    fi;
    if
    :: h_res == OK ->
       if
       :: h_any -> viol_NoStalePublication = 1
       :: else
       fi;
       /* RunPublishesAllOutputs: right after publication main holds every table the run
        * wrote at the run's version: all outputs appear at once. */
       for (h_u : 0 .. NT-1) {
         if
         :: rver[h_u] != NONE && ctab[E(head[MAIN], h_u)] != rver[h_u] -> viol_RunPublishesAllOutputs = 1
         :: else
         fi
       }
       rstat[RUN] = R_SUCCEEDED;
       rpub = head[MAIN];
       if
       :: h_g != rbase -> SAW(saw_PublishAfterMainMoved)
       :: else
       fi;
       printf("@@ Runner: publishes run/1 into main -> commit %d, run 1 succeeded\n", rpub)
    :: else ->
       rstat[RUN] = R_FAILED;
       if
       :: h_res == CONFLICT -> SAW(saw_PublishRefusedConflict)
       :: else
       fi;
       printf("@@ Runner: publication ");
       say_res();
       printf(" -> run 1 failed, main untouched\n")
    fi;
    monitor_state()
  }
  /* 5. Delete the run branch (a kill just before leaves it; harmless). */
  if
  :: rstat[RUN] == R_SUCCEEDED -> alive[RUNB] = 0
  :: skip
  fi;
  goto end;
failed:
  skip;
  d_step {
    rstat[RUN] = R_FAILED;
    printf("@@ Runner: a model fails -> run 1 failed, run/1 kept\n");
    monitor_state()
  };
  goto end;
killed:                     /* the run record stays "running"; run/1 stays */
  printf("@@ Runner: killed (run 1 stays 'running')\n");
end:
  skip
}

inline say_write(who, b, t, mode) {
  if
  :: mode == W_REPLACE -> printf("replace ")
  :: mode == W_APPEND -> printf("append to ")
  :: mode == W_CONTRACT -> printf("new contract for ")
  :: mode == W_COMPACT -> printf("compact ")
  fi;
  say_table(t);
  if
  :: b == MAIN -> printf(" on main")
  :: b == FEED -> printf(" on feed")
  :: else -> printf(" on dev")
  fi
}

/* A concurrent writer on main (or appending on feed). */
proctype Writer() {
  byte k, t, mode, base, rv, rcon, wb;
  do
  :: k < WRITER_OPS ->
     atomic {
       if
       :: t = S; mode = W_REPLACE      /* an import that replaces the source */
       :: t = P; mode = W_REPLACE
       :: t = P; mode = W_APPEND
       :: t = P; mode = W_APPEND; wb = FEED   /* appends on another branch, merged later */
       :: t = P; mode = W_CONTRACT
       :: t = P; mode = W_COMPACT
       :: t = C; mode = W_REPLACE
       fi;
       write_begin(wb, t, base, rv, rcon);
       printf("@@ Writer: starts to ");
       say_write(0, wb, t, mode);
       printf(" (base %d)\n", base)
     }
     d_step {
       write_commit(wb, t, mode, base, rv, rcon);
       printf("@@ Writer: commits ");
       say_write(0, wb, t, mode);
       printf(": ");
       say_res();
       printf(" -> main at %d\n", head[MAIN]);
       monitor_state();
       k++; t = 0; mode = 0; base = 0; rv = 0; rcon = 0; wb = MAIN
     }
  :: else -> break
  od
}

#define A_WRITE      1
#define A_DEV_BRANCH 2   /* branch dev from run/1's head */
#define A_DEV_FIX    3   /* replace C on dev */
#define A_MERGE      4   /* merge dev into main */
#define A_REVERT     5
#define A_REVERT_RUN 6
#define A_MERGE_FEED 7   /* merge feed into main */

inline say_agent_op() {
  if
  :: op == A_WRITE || op == A_DEV_FIX -> say_write(1, (op == A_WRITE -> MAIN : DEV), t, mode)
  :: op == A_DEV_BRANCH -> printf("branch dev from run/1")
  :: op == A_MERGE -> printf("merge dev into main")
  :: op == A_MERGE_FEED -> printf("merge feed into main")
  :: op == A_REVERT -> printf("revert "); say_table(t); printf(" --to %d", R)
  :: op == A_REVERT_RUN -> printf("revert --run 1")
  fi;
  if
  :: part -> printf(" --allow-partial")
  :: else
  fi
}

inline agent_reset() {
  k++; op = 0; t = 0; mode = 0; R = 0; part = 0; base = 0; rv = 0; rcon = 0
}

/* Another actor (a person or an agent). */
proctype Agent() {
  byte k, op, t, mode, R, part, base, rv, rcon;
  do
  :: k < AGENT_OPS ->
     /* choose the operation; phase 1 (its base) in the same step */
     atomic {
       if
       :: op = A_DEV_BRANCH
       :: op = A_MERGE; part = 0
       :: op = A_MERGE; part = 1
       :: op = A_MERGE_FEED
       :: op = A_DEV_FIX; t = C; mode = W_REPLACE
       :: op = A_REVERT; t = P
       :: op = A_REVERT; t = C
       :: op = A_REVERT_RUN
       :: op = A_WRITE; t = P; mode = W_REPLACE
       :: op = A_WRITE; t = P; mode = W_APPEND
       :: op = A_WRITE; t = P; mode = W_CONTRACT
       :: op = A_WRITE; t = P; mode = W_COMPACT
       fi;
       if
       :: op == A_REVERT ->
          if                                         /* R: a tag, the run's branch or result */
          :: R = TAG_V0
          :: alive[RUNB] -> R = head[RUNB]
          :: rpub != NONE -> R = rpub
          fi;
          if
          :: part = 0
          :: part = 1
          fi
       :: else
       fi;
       if
       :: op == A_WRITE || op == A_REVERT || op == A_REVERT_RUN -> write_begin(MAIN, t, base, rv, rcon)
       :: op == A_DEV_FIX && alive[DEV] -> write_begin(DEV, t, base, rv, rcon)
       :: else
       fi;
       printf("@@ Agent: starts to ");
       say_agent_op();
       printf(" (base %d)\n", base)
     }
     /* phase 2: the transaction */
     d_step {
       h_res = OK;
       if
       :: op == A_WRITE -> write_commit(MAIN, t, mode, base, rv, rcon)
       :: op == A_DEV_BRANCH ->
          if
          :: alive[RUNB] && !alive[DEV] -> head[DEV] = head[RUNB]; alive[DEV] = 1
          :: else -> h_res = REFUSED                  /* no such branch, or dev exists */
          fi
       :: op == A_DEV_FIX ->
          if
          :: alive[DEV] -> write_commit(DEV, t, mode, base, rv, rcon)
          :: else -> h_res = REFUSED
          fi
       :: op == A_MERGE ->
          if
          :: alive[DEV] -> merge_into_main(DEV, part, 0, NONE, 1)
          :: else -> h_res = REFUSED
          fi
       :: op == A_MERGE_FEED -> merge_into_main(FEED, 0, 0, NONE, 1)
       :: op == A_REVERT -> revert_commit(t, R, part, base, rv)
       :: op == A_REVERT_RUN ->
#ifdef BROKEN_REVERT_RUN_SPLIT
          /* one commit per table: P first */
          revert_run_check(P, P, base);
          if
          :: h_res == OK && h_any -> mk_commit(h_cur, NONE); revert_run_table(P); move(MAIN)
          :: else
          fi
#else
          revert_run_check(0, NT-1, base);
          if
          :: h_res == OK && h_any ->
             mk_commit(h_cur, NONE);
             for (h_u : 0 .. NT-1) { revert_run_table(h_u) }
             move(MAIN);
             SAW(saw_RevertRun)
          :: else
          fi
#endif
       fi;
       printf("@@ Agent: ");
       say_agent_op();
       printf(": ");
       say_res();
       printf(" -> main at %d\n", head[MAIN]);
       monitor_state();
#ifdef BROKEN_REVERT_RUN_SPLIT
       if
       :: op == A_REVERT_RUN ->
          skip
       :: else -> agent_reset()
       fi
     }
     d_step {
       if
       :: op == A_REVERT_RUN ->                       /* ... then C, in a second commit */
          base = head[MAIN];
          revert_run_check(C, C, base);
          if
          :: h_res == OK && h_any -> mk_commit(h_cur, NONE); revert_run_table(C); move(MAIN)
          :: else
          fi;
          printf("@@ Agent: revert --run 1, second commit (C): ");
          say_res();
          printf(" -> main at %d\n", head[MAIN]);
          monitor_state();
          agent_reset()
       :: else
       fi
#else
       agent_reset()
#endif
     }
  :: else -> break
  od
}

init {
  atomic {
    /* commit 0 (tag v0): S, P, C at versions 0, 1, 2, contract 0, written by no run */
    for (h_i : 0 .. NT-1) {
      vrows[h_i] = (1 << h_i);
      vanc[h_i] = (1 << h_i);
      vcon[h_i] = 0;
      vsame[h_i] = h_i;
      vcanc[h_i] = (1 << h_i);
      vok[h_i] = 1;
      vrun[h_i] = 0;
      ctab[E(0, h_i)] = h_i;
      rver[h_i] = NONE;
      rread[h_i] = NONE
    }
    nv = NT;
    canc[0] = 1;
    nc = 1;
    head[MAIN] = 0;
    alive[MAIN] = 1;
    head[FEED] = 0;
    alive[FEED] = 1;
    run Runner();
    run Writer();
    run Agent()
  }
}
