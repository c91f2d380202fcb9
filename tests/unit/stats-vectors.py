#!/usr/bin/python3
# stats-vectors.py — computes the reference vectors pasted into
# tests/unit/t-stats.c, t-boot.c, t-tost.c and src/lib/method/statcheck.c, with
# independent implementations: numpy 1.24 (np.quantile, type 7), Python's
# statistics module (stdev), scipy 1.10 (ttest_ind, t distribution,
# stats.bootstrap and its internal _bca_interval).  Debian 12's
# /usr/bin/python3 with python3-scipy.  Run:  /usr/bin/python3 tests/unit/stats-vectors.py
import math, statistics
import numpy as np
import scipy.stats as st
from scipy.special import ndtri
from scipy.stats._resampling import _bca_interval

M64 = (1 << 64) - 1
def splitmix64(state):
    state = (state + 0x9e3779b97f4a7c15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return state, z ^ (z >> 31)

def resample_indices(seed, n, B):
    s = seed
    out = np.empty((B, n), dtype=np.int64)
    for b in range(B):
        for i in range(n):
            s, z = splitmix64(s)
            out[b, i] = z % n
    return out

def fmt(v):
    return repr(float(v))

# S1: 25 latencies (ms) with ties (two 48.0, two 61.5).
S1 = [31.2, 35.9, 38.4, 40.1, 41.7, 43.0, 44.8, 46.2, 48.0, 48.0, 49.5, 51.3,
      53.0, 55.2, 57.9, 61.5, 61.5, 64.0, 68.3, 72.9, 79.4, 88.0, 101.7, 126.3, 190.4]
x = np.array(S1)
print("# type-7 quantiles (np.quantile, method='linear')")
for p in [0, 0.01, 0.1, 0.25, 0.5, 0.9, 0.95, 0.99, 1]:
    print(" S1 p=%s -> %s" % (p, fmt(np.quantile(x, p))))
print(" n=1 [7.5] p=0.9 ->", fmt(np.quantile([7.5], 0.9)))
print(" n=2 [1,3] p=0.9 ->", fmt(np.quantile([1.0, 3.0], 0.9)), " p=0.5 ->", fmt(np.quantile([1.0, 3.0], 0.5)))
print("# mean, stdev, cv (statistics.mean / statistics.stdev)")
G = [0.91, 0.94, 0.89, 0.93, 0.92]
print(" G mean", fmt(statistics.mean(G)), "sd", fmt(statistics.stdev(G)), "cv", fmt(statistics.stdev(G) / statistics.mean(G)))
G2 = [0.70, 0.95, 0.80, 0.99, 0.62]
print(" G2 cv", fmt(statistics.stdev(G2) / statistics.mean(G2)))

print("# Welch t-test: scipy.stats.ttest_ind(equal_var=False); df by the Satterthwaite formula")
A = [0.91, 0.94, 0.89, 0.93, 0.92]
Bv = [0.88, 0.90, 0.86, 0.91, 0.87, 0.89]
r = st.ttest_ind(A, Bv, equal_var=False)
va, vb = np.var(A, ddof=1) / len(A), np.var(Bv, ddof=1) / len(Bv)
df = (va + vb) ** 2 / (va ** 2 / (len(A) - 1) + vb ** 2 / (len(Bv) - 1))
print(" t", fmt(r.statistic), "p", fmt(r.pvalue), "df", fmt(df))

print("# TOST by hand from scipy.stats.t: delta 0.05, alpha 0.05")
def tost(a, b, delta, alpha=0.05):
    a, b = np.array(a), np.array(b)
    d = a.mean() - b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    pl = st.t.sf((d + delta) / se, df)
    pu = st.t.cdf((d - delta) / se, df)
    tq = st.t.ppf(1 - alpha, df)
    return d, df, pl, pu, max(pl, pu), d - tq * se, d + tq * se
for name, a, b, delta in [("equiv", A, Bv, 0.05), ("notequiv", A, Bv, 0.03),
                          ("straddle", [0.80, 0.95, 0.70, 0.99, 0.85], [0.90, 0.88, 0.92, 0.86, 0.89], 0.05)]:
    d, df, pl, pu, p, lo, hi = tost(a, b, delta)
    print(" %s d %s df %s p_lower %s p_upper %s p %s lo90 %s hi90 %s" % (name, fmt(d), fmt(df), fmt(pl), fmt(pu), fmt(p), fmt(lo), fmt(hi)))

print("# BCa on fixed resamples: S1, B=2000, indices splitmix64(seed 12345) % n,")
print("# scipy.stats._resampling._bca_interval then np.percentile (as scipy.stats.bootstrap)")
Bn = 2000
idx = resample_indices(12345, len(x), Bn)
# The mean uses S2 = S1 rounded to quarters, so that every resample sum is
# exact in binary floating point and ties θ*_b = θ̂ are exact on both sides.
S2 = np.round(x * 4) / 4
for label, p in [("p50", 0.5), ("p90", 0.9), ("mean", None)]:
    xs = x
    if p is None:
        xs = S2
        stat = lambda s, axis=-1: np.mean(s, axis=axis)
    else:
        stat = lambda s, axis=-1, p=p: np.quantile(s, p, axis=axis)
    tb = stat(xs[idx], axis=-1)
    a1, a2, ahat = _bca_interval((xs,), stat, axis=-1, alpha=0.025, theta_hat_b=tb, batch=None)
    th = stat(xs)
    prop = ((tb < th).sum() + (tb <= th).sum()) / (2 * Bn)
    lo, hi = np.percentile(tb, a1 * 100), np.percentile(tb, a2 * 100)
    plo, phi = np.percentile(tb, 2.5), np.percentile(tb, 97.5)
    print(" %s est %s z0 %s a %s lo %s hi %s | percentile lo %s hi %s" % (label, fmt(th), fmt(ndtri(prop)), fmt(ahat), fmt(lo), fmt(hi), fmt(plo), fmt(phi)))

print("# scipy.stats.bootstrap(method='BCa'), many resamples, for Monte Carlo agreement")
n = 2000
L = np.exp(0.5 * ndtri((np.arange(n) + 0.5) / n)) * 100.0   # a lognormal-shaped sample
LR = np.round(L)                                            # the same, rounded: ties
rng = np.random.default_rng(7)
for name, data in [("L", L), ("LR", LR)]:
    for p in [0.5, 0.9, 0.99]:
        res = st.bootstrap((data,), lambda s, axis=-1: np.quantile(s, p, axis=axis), n_resamples=200000,
                           batch=2000, method='BCa', random_state=rng)
        print(" %s p%g lo %s hi %s" % (name, p * 100, fmt(res.confidence_interval.low), fmt(res.confidence_interval.high)))
G3 = np.array([0.91, 0.94, 0.89, 0.93, 0.92, 0.90, 0.95])
res = st.bootstrap((G3,), np.mean, n_resamples=200000, method='BCa', random_state=rng)
print(" mean G3 lo %s hi %s" % (fmt(res.confidence_interval.low), fmt(res.confidence_interval.high)))
H = np.array([0.85, 0.88, 0.83, 0.86, 0.90])
res = st.bootstrap((G3, H), lambda a, b, axis=-1: np.mean(a, axis=axis) - np.mean(b, axis=axis),
                   n_resamples=200000, method='BCa', random_state=rng)
print(" diff G3-H lo %s hi %s" % (fmt(res.confidence_interval.low), fmt(res.confidence_interval.high)))
Y = np.zeros(400); Y[:331] = 1.0
res = st.bootstrap((Y,), np.mean, n_resamples=200000, method='BCa', random_state=rng)
print(" prop 331/400 lo %s hi %s" % (fmt(res.confidence_interval.low), fmt(res.confidence_interval.high)))

print("# cluster bootstrap, brute force in numpy (pool the drawn reps, np.quantile),")
print("# BCa by the formulas of boot.h (z0 with ties counted one half, leave-one-rep-out jackknife)")
def cluster_reps():
    m = 300
    base = np.exp(0.5 * ndtri((np.arange(m) + 0.5) / m)) * 100.0
    return [np.round(base * (1 + 0.04 * r) + 3 * r, 1) for r in range(5)]
C = cluster_reps()
R = len(C)
crng = np.random.default_rng(11)
Bc = 20000
for p in [0.5, 0.9, 0.99]:
    pooled = np.concatenate(C)
    th = np.quantile(pooled, p)
    tb = np.empty(Bc)
    for b in range(Bc):
        pick = crng.integers(0, R, R)
        tb[b] = np.quantile(np.concatenate([C[k] for k in pick]), p)
    jack = np.array([np.quantile(np.concatenate([C[k] for k in range(R) if k != r]), p) for r in range(R)])
    U = (R - 1) * (jack.mean() - jack)
    a = (U ** 3).sum() / R ** 3 / (6 * ((U ** 2).sum() / R ** 2) ** 1.5)
    z0 = ndtri(((tb < th).sum() + (tb <= th).sum()) / (2 * Bc))
    za = ndtri(0.025)
    a1 = st.norm.cdf(z0 + (z0 + za) / (1 - a * (z0 + za)))
    a2 = st.norm.cdf(z0 + (z0 - za) / (1 - a * (z0 - za)))
    print(" cluster p%g est %s a %s lo %s hi %s" % (p * 100, fmt(th), fmt(a), fmt(np.percentile(tb, a1 * 100)), fmt(np.percentile(tb, a2 * 100))))

# ---- per-rep intervals (tost.h gp_welch_interval, gp_t_interval, gp_crossing_interval)
print('# per-rep intervals: Welch with binomial floors, one-sample t, delta-method crossing')

def welch(a,b,fa,fb,L=.95):
    a=np.array(a);b=np.array(b)
    va=max(a.var(ddof=1),fa)/len(a); vb=max(b.var(ddof=1),fb)/len(b)
    df=(va+vb)**2/(va**2/(len(a)-1)+vb**2/(len(b)-1))
    d=a.mean()-b.mean(); h=st.t.ppf(1-(1-L)/2,df)*np.sqrt(va+vb)
    return d,d-h,d+h,df
def floor(g,n,r):
    p=(g+.5)/(n+1); return p*(1-p)/(n/r)
A=[.95,.93,.96,.94,.92]; B=[.92,.91,.93,.90,.935]
print("welch f=0", [repr(x) for x in welch(A,B,0,0)])
fa=floor(4700,5000,5); fb=floor(4595,5000,5)
print("floors 1000/rep", repr(fa), repr(fb), [repr(x) for x in welch(A,B,fa,fb)])
fa=floor(200,200,2); fb=floor(198,200,2)
print("degen floors", repr(fa), repr(fb), [repr(x) for x in welch([1,1],[.99,.99],fa,fb)])
# tost degenerate with floor delta .02 alpha .05
d=0.01; se=np.sqrt(fa/2+fb/2); df=(fa/2+fb/2)**2/((fa/2)**2/1+(fb/2)**2/1)
print("tost degen p_lower", repr(st.t.sf((d+.02)/se,df)), "p_upper", repr(st.t.cdf((d-.02)/se,df)))
# one sample
x=np.array(B); h=st.t.ppf(.975,4)*x.std(ddof=1)/np.sqrt(5); print("t1", repr(x.mean()), repr(h))
# crossing
X=[.95,.93,.96,.94,.92]; Y=[.85,.80,.88,.83,.86]; r1,r2,T=10.,20.,.9
m1,m2=np.mean(X),np.mean(Y); c=r1+(m1-T)*(r2-r1)/(m1-m2)
a=(r2-r1)*(T-m2)/(m1-m2)**2; b=(r2-r1)*(m1-T)/(m1-m2)**2
v1=np.var(X,ddof=1)/5; v2=np.var(Y,ddof=1)/5; t1=a*a*v1; t2=b*b*v2
df=(t1+t2)**2/(t1*t1/4+t2*t2/4); h=st.t.ppf(.975,df)*np.sqrt(t1+t2)
print("cross", repr(c), repr(c-h), repr(c+h), repr(df))

# ---- ratio of two means (tost.h gp_ratio_interval): Fieller's interval,
# found here by root-finding on the pivot (scipy.optimize.brentq), not by the
# closed form the C code uses.
from scipy.optimize import brentq
def fieller(a,b,fa,fb,L=.95):
    a=np.array(a);b=np.array(b)
    va=max(a.var(ddof=1),fa)/len(a); vb=max(b.var(ddof=1),fb)/len(b)
    R=a.mean()/b.mean(); tx=va; ty=R*R*vb
    df=(tx+ty)**2/(tx*tx/(len(a)-1)+ty*ty/(len(b)-1)); t=st.t.ppf(1-(1-L)/2,df)
    g=lambda r:(a.mean()-r*b.mean())**2-t*t*(va+r*r*vb)
    return R,brentq(g,-1e3,R),brentq(g,R,1e3),df
G1=[18.2,17.1,19.4,18.8,17.9]; G2=[8.1,7.6,8.4,7.9,8.3,8.0]
print("fieller f=0", [repr(x) for x in fieller(G1,G2,0,0)])
print("fieller floors", [repr(x) for x in fieller(G1,G2,0.9,0.2)])

# ---- power (power.h): half-width t.ppf(.975, N-1) sqrt(v/N); reps and
# requests for delta, by search over N and n with scipy's t.ppf.
def hw(v,N,L=.95): return st.t.ppf(1-(1-L)/2,N-1)*math.sqrt(v/N)
print("power hw", repr(hw(0.0291/18,5)), repr(hw(0.01,10)))
print("power reps", next(N for N in range(2,100) if hw(0.01,N)<=0.05))
def req(p,tau2,N,d): return next(n for n in range(1,100000) if hw(p*(1-p)/n+tau2,N)<=d)
print("power requests", req(0.97,0,5,0.05), req(0.9,0,5,0.05), req(0.9,0.0003,5,0.05))
