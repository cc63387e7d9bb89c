# Table of the realistic benchmark (bench/real.sh): reads rows "name mib wall cpu rss_kb
# stacks distinct_stacks distinct_pct hits_pct cache streams perf_wall perf_cpu perf_rss
# p2b_wall p2b_cpu p2b_rss load [lbr_samples distinct]" (the last two by bench/distinct.sh;
# "-" or "n/a" where not measured) and prints a markdown
# table, the realistic files first as given, the tiled best case labelled. Then the speed
# and memory targets per file. Depends on nothing else.
BEGIN {
  what["cc1"] = "cc1 -O2 compiling a C file"
  what["sqlite"] = "sqlite3 running an SQL workload"
  what["python"] = "python3 (json, re, Counter)"
  what["mix3"] = "cc1 + python + sqlite, 3 processes"
  what["mix3000"] = "the same, 3000 processes"
  what["mix10000"] = "the same, 10,000 processes"
  what["threads"] = "sqlite, 256 threads of one process"
  what["mix3_4g"] = "cc1 + python + sqlite, 3 processes, 4 GiB"
  what["cc1_1g"] = "cc1 replayed whole, 1 process, 1 GiB"
  what["cc1_4g"] = "the same, 4 GiB (the same code, 4x the input)"
  what["tiled"] = "**best case**: tiled from 5 short runs (make bench-tiled)"
  what["cc1_cycles"] = "cc1, LBR sampled on cycles (time-weighted)"
  what["python_cycles"] = "python3, LBR sampled on cycles (time-weighted)"
  what["perl"] = "perl (hashes, regular expressions, sort, sprintf)"
  what["perl_cycles"] = "perl, LBR sampled on cycles (time-weighted)"
  how["pid"] = "`--by pid,symbol,mnemonic`"	# the variants NAME+VARIANT (bench/real.sh)
  how["comm"] = "`--by comm,symbol`"
  how["sqlite"] = "to SQLite (`-o run.sqlite`)"
}
function isnum(x) { return x ~ /^[0-9.]+$/ }
function f2(x) { return isnum(x) ? sprintf("%.2f", x) : "-" }
function ratio(a, b) { return (isnum(a) && isnum(b) && b > 0) ? sprintf("%.1fx", a / b) : "-" }
function rate(m, w) { return (isnum(w) && w > 0) ? sprintf("%.0f", m / w) : "-" }
function mb(k) { return isnum(k) ? sprintf("%.0f", k / 1024) : "-" }
function file(n) { sub(/\+.*/, "", n); return n }	# NAME+VARIANT: the input NAME
function pct(p) { return isnum(p) ? p "%" : p }
{
  n++; name[n] = $1; mib[n] = $2; w[n] = $3; c[n] = $4; r[n] = $5
  st[n] = $6; ds[n] = $7; dp[n] = $8; hr[n] = $9; cs[n] = $10; sd[n] = $11
  pw[n] = $12; pc[n] = $13; pr[n] = $14; bw[n] = $15; bc[n] = $16; br[n] = $17; ld[n] = $18
  ps[n] = $19; pd[n] = $20
}
END {
  print "| input | size MiB | hbbp-convert wall s | MiB/s | CPU s | peak RSS MiB | LBR stacks | distinct stacks | distinct streams | stack cache hits | distinct stacks by perf | perf script wall / CPU s | perf script / ours, wall / CPU | perf2bolt wall / CPU s | perf2bolt / ours, wall / CPU | load |"
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= n; i++) {
    lab = (name[i] in what) ? what[name[i]] : name[i]
    if (name[i] ~ /\+/) {
      v = name[i]; sub(/.*\+/, "", v)
      lab = ((file(name[i]) in what) ? what[file(name[i])] : file(name[i])) ", " how[v]
    }
    dist = ds[i] (isnum(dp[i]) ? " (" dp[i] "%)" : "")
    hits = pct(hr[i]) (cs[i] != "n/a" && cs[i] != "" ? " (" cs[i] ")" : "")
    pdist = "-"
    if (isnum(ps[i]) && isnum(pd[i]) && ps[i] > 0)
      pdist = sprintf("%d of %d (%.1f%%)", pd[i], ps[i], 100 * pd[i] / ps[i])
    printf "| %s (`%s.data`) | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s |\n",
      lab, file(name[i]), mib[i], f2(w[i]), rate(mib[i], w[i]), f2(c[i]), mb(r[i]), st[i], dist,
      sd[i], hits, pdist, f2(pw[i]), f2(pc[i]), ratio(pw[i], w[i]), ratio(pc[i], c[i]),
      f2(bw[i]), f2(bc[i]), ratio(bw[i], w[i]), ratio(bc[i], c[i]), ld[i]
  }
  print ""
  print "Targets: conversion >= 300 MiB/s and >= 5x faster than perf script (wall times; CPU"
  print "times in parentheses), peak RSS < 200 MiB; 10,000 processes within 1.5x of the 3-process"
  print "time; the 4 GiB file's RSS within 10% of the 1 GiB one's."
  print ""
  print "| input | MiB/s >= 300 | perf script / ours >= 5 | RSS < 200 MiB |"
  print "|---|---|---|---|"
  for (i = 1; i <= n; i++) {
    if (!isnum(w[i]) || w[i] <= 0) continue
    idx[name[i]] = i
    m = mib[i] / w[i]
    pr5 = "-"
    if (isnum(pw[i])) {
      q = pw[i] / w[i]
      pr5 = (q >= 5 ? "met" : "not met") " (" ratio(pw[i], w[i]) "; CPU " ratio(pc[i], c[i]) ")"
    }
    okm = m >= 300 ? "met" : "not met"
    mc = (isnum(c[i]) && c[i] > 0) ? sprintf("; CPU %.0f", mib[i] / c[i]) : ""
    okr = r[i] / 1024 < 200 ? "met" : "not met"
    printf "| %s | %s (%.0f%s) | %s | %s (%s) |\n", name[i], okm, m, mc, pr5, okr, mb(r[i])
  }
  if (("mix3" in idx) && ("mix10000" in idx)) {
    a = idx["mix3"]; b = idx["mix10000"]
    # per MiB, the two files' sizes differ slightly
    q = w[a] > 0 ? (w[b] / mib[b]) / (w[a] / mib[a]) : 0
    qc = c[a] > 0 ? (c[b] / mib[b]) / (c[a] / mib[a]) : 0
    printf "\n10,000 processes / 3 processes, wall per MiB (the files timed minutes apart; side by side below): %.2f (wanted <= 1.5: %s; CPU %.2f)\n",
      q, q <= 1.5 ? "met" : "not met", qc
  }
  if (("mix3" in idx) && ("mix3_4g" in idx)) {
    a = idx["mix3"]; b = idx["mix3_4g"]
    q = r[b] / r[a]
    printf "\nRSS 4 GiB / RSS 1 GiB (3 processes, runs from the start: the 4 GiB file holds more code): %.2f (wanted <= 1.10: %s)\n", q,
      q <= 1.1 ? "met" : "not met"
  }
  if (("cc1_1g" in idx) && ("cc1_4g" in idx)) {
    a = idx["cc1_1g"]; b = idx["cc1_4g"]
    q = r[b] / r[a]
    printf "\nRSS 4 GiB / RSS 1 GiB (cc1 replayed whole: the same code): %.2f (wanted <= 1.10: %s)\n",
      q, q <= 1.1 ? "met" : "not met"
  }
  # the other questions: SQLite output against CSV; per-process keys against perf script
  for (v in idx) {
    base = v; sub(/\+.*/, "", base)
    if (v ~ /\+sqlite$/ && (base in idx)) {
      a = idx[base]; b = idx[v]
      qc = (c[a] > 0) ? c[b] / c[a] : 0
      ok = (w[b] <= 1.2 * w[a] && c[b] <= 1.2 * c[a]) ? "met" : "not met"
      printf "\nSQLite / CSV output, %s: wall %.2f, CPU %.2f (wanted <= 1.2: %s)\n", base,
        w[b] / w[a], qc, ok
    }
    if (v ~ /\+pid$/ && isnum(pw[idx[v]])) {
      b = idx[v]
      ok = (pw[b] >= 3 * w[b] && pc[b] >= 3 * c[b] && r[b] / 1024 < 300) ? "met" : "not met"
      printf "\nper-process keys, %s: perf script / ours wall %s, CPU %s, RSS %s MiB (wanted >= 3x and < 300 MiB: %s)\n",
        v, ratio(pw[b], w[b]), ratio(pc[b], c[b]), mb(r[b]), ok
    }
  }
}
