/*
 * lmx.pml -- Promela model of the local mutual exclusion algorithm of Daymude, Richa and
 * Scheideler (SAND 2022), Algorithms 1-3, written from the paper's pseudocode and
 * docs/errata.md (independently of src/core). See docs/checker.md, "Second opinion: SPIN".
 *
 * Instance macros (all optional):
 *   NN        number of nodes, 2..3                        (default 2)
 *   DELTA     ports per node besides port 0, 1..2          (default 1)
 *   K         number of priorities, 1..3                   (default 2)
 *   LOCKS     Lock calls per node                          (default 1)
 *   CHANGES   topology moves (cut / connect) in total      (default 0)
 *   E01 E02 E12   initial edges (each takes the lowest free port at both ends)
 *   REPAIRED  the repaired variant (repairs R1, R2 and R3); without it, the paper as printed
 *   FAST      with REPAIRED: the fast variant (F1: CheckPriorities waits for lock = bottom; F2: a tie
 *             for the highest priority goes to one of the tied ports, any of them: the draw's support)
 *   STUCK_ONLY  report only deadlocks with a request pending in this initiator state (e.g. 3 = WIN)
 *   NO_DEADLOCK check only the safety properties P1 and P4
 *
 * One process, `world`, repeatedly chooses an enabled move: a node's Lock call, Unlock call,
 * guarded action, or the delivery of one message waiting at one of its ports, or a topology move.
 * Each move is one atomic step.
 */
#ifndef NN
#define NN 2
#endif
#ifndef DELTA
#define DELTA 1
#endif
#ifndef K
#define K 2
#endif
#ifndef LOCKS
#define LOCKS 1
#endif
#ifndef CHANGES
#define CHANGES 0
#endif

#define PORTS  (DELTA + 1)
#define NONE   255

/* initiator states */
#define IDLE    0
#define PREPARE 1
#define COMPETE 2
#define WIN     3
#define LOCKED  4
#define UNLOCK  5
/* participant phases: IDLE (bottom), PREPARE, COMPETE */

/* message kinds; request-lock(p) is kind MREQ + p */
#define MPREP   0
#define MREADY  1
#define MWINF   2
#define MWINT   3
#define MSET    4
#define MACKL   5
#define MREL    6
#define MACKU   7
#define MREQ    8
#define NK      (MREQ + K)

#define BIT(l)     (1 << (l))
#define HAS(s, l)  ((((s) >> (l)) & 1) == 1)
#define BITS(x)    ((((x) >> 0) & 1) + (((x) >> 1) & 1) + (((x) >> 2) & 1) + (((x) >> 3) & 1))
#define IX(u, l)   ((u) * PORTS + (l))

/* Table 1, one entry per node; sets are bit registers over ports 0..DELTA */
byte st[NN];        /* initiator state */
byte ph[NN];        /* participant phase */
byte lk[NN];        /* lock: a port or NONE */
byte L[NN], R[NN], Wt[NN], Wf[NN];   /* W as (ports with true, ports with false) */
byte H[NN], A[NN], C[NN], Pp[NN];    /* Pp: ports holding a pair in P */
byte pr[NN * PORTS];                 /* the priority of each pair in P */
byte D[NN];         /* disconnection detector, snapshot-and-reset by every action */
byte left[NN];      /* Lock calls left */

/* topology: port -> peer node and peer port */
byte peer[NN * PORTS], pport[NN * PORTS];
byte chg = CHANGES;

/* channels: one bag per (node, port): message counts per kind, and the total */
byte msg[NN * PORTS * NK];
byte inq[NN * PORTS];

/* observer only: ports connected without interruption since the node's InitLock */
byte pers[NN];

hidden byte sd, nbest, zbest, zset, prio, zi, pu, pl, bz, zr;
hidden byte err_deadlock, err_p1, err_p4, late;

#define MSG(u, l, k) msg[IX(u, l) * NK + (k)]

/* ---- sending ---- */
inline put(v, lv, k) {
  MSG(v, lv, k)++; inq[IX(v, lv)]++;
}
inline send1(u, l, k) {   /* Send(k, l) at node u: port 0 loops back, a free port loses it */
  if
  :: (l) == 0 -> put(u, 0, k)
  :: (l) != 0 && peer[IX(u, l)] != NONE -> put(peer[IX(u, l)], pport[IX(u, l)], k)
  :: else -> skip
  fi
}
inline sendset(u, s, k) {
  zset = s;
  zi = 0;
  do
  :: zi < PORTS -> if :: HAS(zset, zi) -> send1(u, zi, k) :: else -> skip fi; zi++
  :: else -> break
  od;
  zi = 0; zset = 0
}

/* ---- CleanUp() (Alg. 1, lines 22-31), with the snapshot sd of D ---- */
inline cleanup(u) {
  if
  :: sd != 0 ->
     if :: lk[u] != NONE && HAS(sd, lk[u]) -> lk[u] = NONE :: else -> skip fi;
     L[u] = L[u] & ~sd; R[u] = R[u] & ~sd; Wt[u] = Wt[u] & ~sd; Wf[u] = Wf[u] & ~sd;
     H[u] = H[u] & ~sd; A[u] = A[u] & ~sd; C[u] = C[u] & ~sd; Pp[u] = Pp[u] & ~sd;
     zi = 0;
     do :: zi < PORTS -> if :: HAS(sd, zi) -> pr[IX(u, zi)] = 0 :: else -> skip fi; zi++ :: else -> break od;
     zi = 0
  :: else -> skip
  fi;
  if
  :: C[u] == 0 ->
#ifdef REPAIRED
     zr = H[u] & ~bz;   /* R3: a held port the action sends to (bz) is released by a later CleanUp */
#else
     zr = H[u];
#endif
     sendset(u, zr, MREADY);
     A[u] = A[u] | zr; H[u] = H[u] & ~zr; zr = 0;
     ph[u] = ((A[u] | H[u]) != 0 -> PREPARE : IDLE)
  :: else -> skip
  fi
}
/* would CleanUp change anything (D nonempty, held ports to release, or a phase to reset)? */
#define CLEANUP_CHANGES(u) (D[u] != 0 || (C[u] == 0 && (H[u] != 0 || ph[u] != (A[u] != 0 -> PREPARE : IDLE))))

inline snap(u) { sd = D[u]; D[u] = 0 }
/* bz: the ports the current action sends to after its CleanUp (R3 keeps those held); reset after */

/* ports of u that are connected */
#define NBRS(u) ((peer[IX(u, 1)] != NONE -> 2 : 0) | (DELTA > 1 && peer[IX(u, DELTA)] != NONE -> BIT(DELTA) : 0))

/* ---- Algorithm 1 ---- */
inline init_lock(u) {            /* on Lock being called, state = bottom */
  snap(u); bz = NBRS(u) | 1; cleanup(u); bz = 0;
  st[u] = PREPARE; L[u] = NBRS(u) | 1; pers[u] = NBRS(u);
  sendset(u, L[u], MPREP);
  left[u]--
}
inline receive_prepare(u, l) {
  snap(u); bz = BIT(l); cleanup(u); bz = 0;
  if
  :: ph[u] == COMPETE -> H[u] = H[u] | BIT(l)
  :: else -> A[u] = A[u] | BIT(l); ph[u] = PREPARE; send1(u, l, MREADY)
  fi
}
inline receive_ready(u, l) { snap(u); cleanup(u); R[u] = R[u] | BIT(l) }
inline draw() {
  if :: prio = 0 :: K > 1 -> prio = 1 :: K > 2 -> prio = 2 fi
}
inline check_start(u) {
  snap(u); bz = L[u] & ~sd; cleanup(u); bz = 0;
  st[u] = COMPETE; R[u] = 0; Wt[u] = 0; Wf[u] = 0;
  draw(); sendset(u, L[u], MREQ + prio); prio = 0
}

/* ---- Algorithm 2 ---- */
inline receive_request(u, l, pv) {
  snap(u); bz = BIT(l); cleanup(u); bz = 0;
  late = 0;
  if
  :: HAS(A[u], l) ->
     A[u] = A[u] & ~BIT(l);
#ifdef REPAIRED
     /* R2: a decided trial is unanswered by some candidate (C \ P nonempty): answer win(false) */
     if :: (C[u] & ~Pp[u]) != 0 -> late = 1 :: else -> skip fi;
#endif
     C[u] = C[u] | BIT(l)
  :: else -> skip
  fi;
  if
  :: late == 1 -> ph[u] = COMPETE; send1(u, l, MWINF)
  :: else -> Pp[u] = Pp[u] | BIT(l); pr[IX(u, l)] = pv; ph[u] = COMPETE
  fi;
  late = 0
}
inline check_priorities(u) {
  snap(u); bz = C[u] & ~sd; cleanup(u); bz = 0;
  /* the highest priority among the pairs in P, and how many ports hold it */
  zbest = 0; nbest = 0; pl = NONE; zi = 0;
  do
  :: zi < PORTS ->
     if
     :: HAS(Pp[u], zi) && (nbest == 0 || pr[IX(u, zi)] > zbest) -> zbest = pr[IX(u, zi)]; nbest = 1; pl = zi
     :: HAS(Pp[u], zi) && nbest > 0 && pr[IX(u, zi)] == zbest -> nbest++
     :: else -> skip
     fi; zi++
  :: else -> break
  od;
#ifdef FAST
  /* F2: one of the tied ports wins; each is a choice of the model (pl: the one taken) */
  if
  :: nbest > 1 ->
     zi = 0;
     do
     :: zi < PORTS && HAS(Pp[u], zi) && pr[IX(u, zi)] == zbest ->
        if
        :: pl = zi; break
        :: nbest > 1 -> nbest--; zi++  /* passed over: another tied port remains */
        fi
     :: zi < PORTS && !(HAS(Pp[u], zi) && pr[IX(u, zi)] == zbest) -> zi++
     od;
     nbest = 1
  :: else -> skip
  fi;
#endif
  if
  :: lk[u] == NONE && nbest == 1 ->
     send1(u, pl, MWINT); sendset(u, C[u] & ~BIT(pl), MWINF)
  :: else -> sendset(u, C[u], MWINF)
  fi;
  Pp[u] = 0; zi = 0;
  do :: zi < PORTS -> pr[IX(u, zi)] = 0; zi++ :: else -> break od;
  zi = 0; zbest = 0; nbest = 0; pl = 0
}
inline receive_win(u, l, b) {
  snap(u); cleanup(u);
  if :: b -> Wt[u] = Wt[u] | BIT(l) :: else -> Wf[u] = Wf[u] | BIT(l) fi
}
inline check_win(u) {
  snap(u); bz = L[u] & ~sd; cleanup(u); bz = 0;
  if
  :: Wf[u] != 0 -> draw(); sendset(u, L[u], MREQ + prio); prio = 0
  :: else -> st[u] = WIN; R[u] = 0; sendset(u, L[u], MSET)
  fi;
  Wt[u] = 0; Wf[u] = 0
}
inline receive_set_lock(u, l) {
  snap(u);
  lk[u] = l; C[u] = C[u] & ~BIT(l);
  bz = BIT(l); cleanup(u); bz = 0;
  send1(u, l, MACKL)
}
inline receive_ack_lock(u, l) { snap(u); cleanup(u); R[u] = R[u] | BIT(l) }
inline check_done(u) { snap(u); cleanup(u); st[u] = LOCKED; R[u] = 0 }

/* ---- Algorithm 3 ---- */
inline init_unlock(u) {
  snap(u); bz = L[u] & ~sd; cleanup(u); bz = 0;
  st[u] = UNLOCK; R[u] = 0;
  sendset(u, L[u], MREL)
}
inline receive_release(u, l) { snap(u); bz = BIT(l); cleanup(u); bz = 0; lk[u] = NONE; send1(u, l, MACKU) }
inline receive_ack_unlock(u, l) { snap(u); cleanup(u); R[u] = R[u] | BIT(l) }
inline check_unlocked(u) { snap(u); cleanup(u); st[u] = IDLE; R[u] = 0; pers[u] = 0 }

/* ---- guards ---- */
#ifdef REPAIRED
#define CLEANUP_GUARD(u) (ph[u] != IDLE || st[u] == UNLOCK || st[u] == WIN)   /* R1 */
#else
#define CLEANUP_GUARD(u) (ph[u] != IDLE || st[u] == UNLOCK)
#endif
#define G_START(u)    (st[u] == PREPARE && R[u] == L[u])
#define G_CLEAN(u)    (CLEANUP_GUARD(u) && CLEANUP_CHANGES(u))   /* a CleanUp changing nothing is a self-loop */
#ifdef FAST
#define G_PRIO(u)     (ph[u] == COMPETE && BITS(C[u]) == BITS(Pp[u]) && lk[u] == NONE)  /* F1 */
#else
#define G_PRIO(u)     (ph[u] == COMPETE && BITS(C[u]) == BITS(Pp[u]))
#endif
#define G_WIN(u)      (st[u] == COMPETE && BITS(Wt[u]) + BITS(Wf[u]) == BITS(L[u]))
#define G_DONE(u)     (st[u] == WIN && R[u] == L[u])
#define G_UNLOCKED(u) (st[u] == UNLOCK && R[u] == L[u])
#define G_LOCK(u)     (st[u] == IDLE && left[u] > 0)
#define G_UNLOCK(u)   (st[u] == LOCKED)
#define HASMSG(u)     (inq[IX(u, 0)] + inq[IX(u, 1)] + (DELTA > 1 -> inq[IX(u, DELTA)] : 0) > 0)
#define NODE_MOVE(u)  (G_LOCK(u) || G_UNLOCK(u) || G_START(u) || G_CLEAN(u) || G_PRIO(u) || \
                       G_WIN(u) || G_DONE(u) || G_UNLOCKED(u) || HASMSG(u))
#define PENDING(u)    (st[u] == PREPARE || st[u] == COMPETE || st[u] == WIN || st[u] == UNLOCK)

/* STUCK_ONLY=s restricts the deadlock property to requests pending in initiator state s */
#ifdef STUCK_ONLY
#undef PENDING
#define PENDING(u) (st[u] == STUCK_ONLY)
#endif
#if NN == 1
#define ANY_NODE_MOVE NODE_MOVE(0)
#define ANY_PENDING   PENDING(0)
#elif NN == 2
#define ANY_NODE_MOVE (NODE_MOVE(0) || NODE_MOVE(1))
#define ANY_PENDING   (PENDING(0) || PENDING(1))
#else
#define ANY_NODE_MOVE (NODE_MOVE(0) || NODE_MOVE(1) || NODE_MOVE(2))
#define ANY_PENDING   (PENDING(0) || PENDING(1) || PENDING(2))
#endif

/* P1: the closed lock sets {u} + persistent neighbours in L(u) of two LOCKED nodes are disjoint */
#define NB(u, l)  ((l) <= DELTA && HAS(L[u] & pers[u], l) && peer[IX(u, l)] != NONE -> BIT(peer[IX(u, l)]) : 0)
#define CLOSED(u) (BIT(u) | NB(u, 1) | NB(u, 2))
#define CLASH(u, v) (st[u] == LOCKED && st[v] == LOCKED && (CLOSED(u) & CLOSED(v)) != 0)
#if NN == 1
#define P1_BAD 0
#elif NN == 2
#define P1_BAD CLASH(0, 1)
#else
#define P1_BAD (CLASH(0, 1) || CLASH(0, 2) || CLASH(1, 2))
#endif
/* P4: at most two messages in transit along an edge (both directions), checked at port u:l */
#define EDGE_BAD(u, l) (peer[IX(u, l)] != NONE && inq[IX(u, l)] + inq[IX(peer[IX(u, l)], pport[IX(u, l)])] > 2)

/* ---- moves ---- */
#define NODE_ACTIONS(u) \
  :: atomic { G_LOCK(u) -> init_lock(u) } \
  :: atomic { G_UNLOCK(u) -> init_unlock(u) } \
  :: atomic { G_START(u) -> check_start(u) } \
  :: atomic { G_CLEAN(u) -> snap(u); cleanup(u) } \
  :: atomic { G_PRIO(u) -> check_priorities(u) } \
  :: atomic { G_WIN(u) -> check_win(u) } \
  :: atomic { G_DONE(u) -> check_done(u) } \
  :: atomic { G_UNLOCKED(u) -> check_unlocked(u) }

/* deliver one message waiting at port l of node u: any kind present (bags: any order) */
#define TAKE(u, l, k) MSG(u, l, k)--; inq[IX(u, l)]--
#define DELIVER(u, l) \
  :: atomic { inq[IX(u, l)] > 0 -> \
       if \
       :: MSG(u, l, MPREP) > 0 -> TAKE(u, l, MPREP); receive_prepare(u, l) \
       :: MSG(u, l, MREADY) > 0 -> TAKE(u, l, MREADY); receive_ready(u, l) \
       :: MSG(u, l, MWINF) > 0 -> TAKE(u, l, MWINF); receive_win(u, l, false) \
       :: MSG(u, l, MWINT) > 0 -> TAKE(u, l, MWINT); receive_win(u, l, true) \
       :: MSG(u, l, MSET) > 0 -> TAKE(u, l, MSET); receive_set_lock(u, l) \
       :: MSG(u, l, MACKL) > 0 -> TAKE(u, l, MACKL); receive_ack_lock(u, l) \
       :: MSG(u, l, MREL) > 0 -> TAKE(u, l, MREL); receive_release(u, l) \
       :: MSG(u, l, MACKU) > 0 -> TAKE(u, l, MACKU); receive_ack_unlock(u, l) \
       :: MSG(u, l, MREQ) > 0 -> TAKE(u, l, MREQ); receive_request(u, l, 0) \
       :: K > 1 && MSG(u, l, MREQ + 1) > 0 -> TAKE(u, l, MREQ + 1); receive_request(u, l, 1) \
       :: K > 2 && MSG(u, l, MREQ + 2) > 0 -> TAKE(u, l, MREQ + 2); receive_request(u, l, 2) \
       fi }

/* cut the edge at port l of u: messages in transit on it are lost, both ends note it in D */
#define CUT(u, l) \
  :: atomic { chg > 0 && peer[IX(u, l)] != NONE -> \
       chg--; pu = peer[IX(u, l)]; pl = pport[IX(u, l)]; \
       zi = 0; do :: zi < NK -> MSG(u, l, zi) = 0; MSG(pu, pl, zi) = 0; zi++ :: else -> break od; zi = 0; \
       inq[IX(u, l)] = 0; inq[IX(pu, pl)] = 0; \
       D[u] = D[u] | BIT(l); D[pu] = D[pu] | BIT(pl); \
       pers[u] = pers[u] & ~BIT(l); pers[pu] = pers[pu] & ~BIT(pl); \
       peer[IX(u, l)] = NONE; pport[IX(u, l)] = NONE; peer[IX(pu, pl)] = NONE; pport[IX(pu, pl)] = NONE; \
       pu = 0; pl = 0 }

#define ADJ(u, v) (peer[IX(u, 1)] == (v) || (DELTA > 1 && peer[IX(u, DELTA)] == (v)))
#define LINK(u, lu, v, lv) peer[IX(u, lu)] = v; pport[IX(u, lu)] = lv; peer[IX(v, lv)] = u; pport[IX(v, lv)] = lu
/* connect u (port lu) and v (port lv): non-adjacent, both ports free */
#define CONNECT(u, lu, v, lv) \
  :: atomic { chg > 0 && !ADJ(u, v) && peer[IX(u, lu)] == NONE && peer[IX(v, lv)] == NONE -> \
       chg--; LINK(u, lu, v, lv) }

#define FREE_PORT(u) (peer[IX(u, 1)] == NONE -> 1 : DELTA)
inline initial_edge(u, v) {
  zbest = FREE_PORT(u); nbest = FREE_PORT(v);
  assert(peer[IX(u, zbest)] == NONE && peer[IX(v, nbest)] == NONE);
  LINK(u, zbest, v, nbest);
  zbest = 0; nbest = 0
}

init {
  atomic {
    zi = 0;
    do
    :: zi < NN * PORTS -> peer[zi] = NONE; pport[zi] = NONE; zi++
    :: else -> break
    od;
    zi = 0;
    do
    :: zi < NN -> lk[zi] = NONE; left[zi] = LOCKS; zi++
    :: else -> break
    od;
    zi = 0;
#ifdef E01
    initial_edge(0, 1);
#endif
#ifdef E02
    initial_edge(0, 2);
#endif
#ifdef E12
    initial_edge(1, 2);
#endif
    skip
  };
end:
  do
  /* properties, checked in every state */
#ifndef NO_DEADLOCK
  :: !ANY_NODE_MOVE && ANY_PENDING -> err_deadlock = 1; assert(err_deadlock == 0)
#endif
  :: P1_BAD -> err_p1 = 1; assert(err_p1 == 0)
  :: EDGE_BAD(0, 1) -> err_p4 = 1; assert(err_p4 == 0)
#if NN > 1
  :: EDGE_BAD(1, 1) -> err_p4 = 1; assert(err_p4 == 0)
#endif
#if DELTA > 1
  :: EDGE_BAD(0, 2) -> err_p4 = 1; assert(err_p4 == 0)
  :: EDGE_BAD(1, 2) -> err_p4 = 1; assert(err_p4 == 0)
#endif
  /* node moves */
  NODE_ACTIONS(0)
  DELIVER(0, 0)
  DELIVER(0, 1)
#if DELTA > 1
  DELIVER(0, 2)
#endif
#if NN > 1
  NODE_ACTIONS(1)
  DELIVER(1, 0)
  DELIVER(1, 1)
#if DELTA > 1
  DELIVER(1, 2)
#endif
#endif
#if NN > 2
  NODE_ACTIONS(2)
  DELIVER(2, 0)
  DELIVER(2, 1)
#if DELTA > 1
  DELIVER(2, 2)
#endif
#endif
  /* topology moves */
#if CHANGES > 0
  CUT(0, 1)
#if NN > 1
  CUT(1, 1)
#endif
#if DELTA > 1
  CUT(0, 2)
  CUT(1, 2)
#endif
#if NN > 2
  CUT(2, 1)
#if DELTA > 1
  CUT(2, 2)
#endif
#endif
#if NN > 1
  CONNECT(0, 1, 1, 1)
#if DELTA > 1
  CONNECT(0, 1, 1, 2)
  CONNECT(0, 2, 1, 1)
  CONNECT(0, 2, 1, 2)
#endif
#endif
#if NN > 2
  CONNECT(0, 1, 2, 1)
  CONNECT(1, 1, 2, 1)
#if DELTA > 1
  CONNECT(0, 1, 2, 2)
  CONNECT(0, 2, 2, 1)
  CONNECT(0, 2, 2, 2)
  CONNECT(1, 1, 2, 2)
  CONNECT(1, 2, 2, 1)
  CONNECT(1, 2, 2, 2)
#endif
#endif
#endif
  od
}
