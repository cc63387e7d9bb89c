# Benchmark table (bench/run.sh): reads rows "size tool input wall cpu rss_kb mib samples
# load", prints the markdown table with rates and ratios to hbbp-csv plain of the same size,
# then the issue's targets checked on the largest size. Depends on nothing else.
{ n++; sz[n] = $1; lab[n] = $2; var[n] = $3; wall[n] = $4; cpu[n] = $5; rss[n] = $6;
  mib[n] = $7; smp[n] = $8; ld[n] = $9; k = $1 " " $2 " " $3; W[k] = $4; C[k] = $5; R[k] = $6
  M[k] = $7; if (!($1 in seen)) { seen[$1] = 1; sizes[++ns] = $1 } }
function pos(x) { return x > 0 ? x : 0.005 }
function ratio(a, b) { return (a != "" && b > 0) ? sprintf("%.2f", a / b) : "-" }
function goal(name, w, c, want, ok_w, ok_c) {
  printf "| %s | %s | %s | %s | %s |\n", name, w, c, want, c == "-" ? (ok_w ? "met" : "not met") : \
    (ok_w ? "met" : "not met") " (wall), " (ok_c ? "met" : "not met") " (cpu)" }
END {
  print "| size | tool | input | wall s | cpu s | MiB/s | MiB/cpu-s | samples/s | peak RSS MiB | wall / ours | cpu / ours | load |"
  print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= n; i++) {
    o = sz[i] " hbbp-csv plain"
    printf "| %s MiB | %s | %s | %.2f | %.2f | %.0f | %.0f | %.0f | %.1f | %s | %s | %s |\n",
      sz[i], lab[i], var[i], wall[i], cpu[i], mib[i] / pos(wall[i]), mib[i] / pos(cpu[i]),
      smp[i] / pos(wall[i]), rss[i] / 1024, ratio(wall[i], W[o]), ratio(cpu[i], C[o]), ld[i]
  }
  big = sizes[ns]; small = sizes[1]
  o = big " hbbp-csv plain"
  if (!(o in W)) exit
  print ""
  print "Targets on the " big " MiB file, from wall times and from CPU times:"
  print ""
  print "| target | wall | cpu | wanted | status |"
  print "|---|---:|---:|---|---|"
  w = M[o] / pos(W[o]); c = M[o] / pos(C[o])
  goal("conversion MiB/s", sprintf("%.0f", w), sprintf("%.0f", c), ">= 300", w >= 300, c >= 300)
  k = big " cat plain"
  if (k in W) {
    w = W[o] / pos(W[k])
    goal("conversion / cat", sprintf("%.1f", w), "-", "<= 4", w <= 4, w <= 4)
  }
  k = big " perf-script plain"
  if (k in W) {
    w = W[k] / pos(W[o]); c = C[k] / pos(C[o])
    goal("perf script / conversion", sprintf("%.1f", w), sprintf("%.1f", c), ">= 5", w >= 5, c >= 5)
    d = big " hbbp-dump plain"
    if (d in W) {
      w = W[k] / pos(W[d]); c = C[k] / pos(C[d])
      goal("perf script / dump", sprintf("%.1f", w), sprintf("%.1f", c), ">= 3", w >= 3, c >= 3)
    }
  }
  if (small != big) {
    s = small " hbbp-csv plain"
    r = R[o] / R[s]
    goal("RSS " big " MiB / RSS " small " MiB", sprintf("%.2f", r), "-", "<= 1.2", r <= 1.2, r <= 1.2)
  }
  goal("peak RSS MiB", sprintf("%.0f", R[o] / 1024), "-", "< 200", R[o] / 1024 < 200, R[o] / 1024 < 200)
  k = big " hbbp-csv z"
  if (k in W) {
    w = M[k] / pos(W[k]); c = M[k] / pos(C[k])
    goal("compressed MiB/s", sprintf("%.0f", w), sprintf("%.0f", c), ">= 150", w >= 150, c >= 150)
  }
}
