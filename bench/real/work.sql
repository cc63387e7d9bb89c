-- Database workload of the realistic benchmark (bench/real_inputs.sh): sqlite3 builds a
-- table, indexes it, scans, groups, sorts and updates it. Deterministic (no random()), so
-- that the recording is the same on every run. The row count (17000) sets its length.
create table t(a integer primary key, b text, c real);
with recursive n(i) as (select 1 union all select i + 1 from n where i < 17000)
insert into t select i, printf('%08X%04X', (i * 2654435761) % 4294967296, i % 65521), i * 1.5
from n;
create index tb on t(b);
select count(*), sum(c) from t where b like '%A%';
select substr(b, 1, 2), count(*) from t group by substr(b, 1, 2) order by 2 desc limit 5;
update t set c = c * 2 where a % 3 = 0;
select avg(c) from t;
