# Interpreter workload of the realistic benchmark (bench/real_inputs.sh): python3 builds,
# serialises and parses JSON, then counts regex matches. Deterministic.
import json, re, collections
d = [{"k": i, "v": str(i)*3, "l": list(range(i % 7))} for i in range(5000)]
s = json.dumps(d)
e = json.loads(s)
c = collections.Counter(re.findall(r"[0-9]{2}", s))
print(len(e), c.most_common(3))
