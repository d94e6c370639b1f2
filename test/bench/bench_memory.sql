-- Timing and memory probes shared by test/bench/batch_spill_bench.sh and
-- test/bench/set_pairs_bench.sh (docs/reports/bench-batch-spill.md).

-- bench_status(): this backend's memory figures from /proc/self/status, in kB
CREATE OR REPLACE FUNCTION bench_status(OUT hwm bigint, OUT rss bigint, OUT anon bigint,
										OUT file bigint, OUT shmem bigint)
LANGUAGE plpgsql AS $$
DECLARE
	s text := pg_read_file('/proc/self/status');
BEGIN
	hwm := substring(s FROM 'VmHWM:\s+(\d+)')::bigint;
	rss := substring(s FROM 'VmRSS:\s+(\d+)')::bigint;
	anon := substring(s FROM 'RssAnon:\s+(\d+)')::bigint;
	file := substring(s FROM 'RssFile:\s+(\d+)')::bigint;
	shmem := substring(s FROM 'RssShmem:\s+(\d+)')::bigint;
END $$;

-- bench_sched(): this backend's time on a CPU and time waiting for one
-- (runnable, but other processes ran), in ns, from /proc/self/schedstat
CREATE OR REPLACE FUNCTION bench_sched(OUT cpu_ns bigint, OUT wait_ns bigint)
LANGUAGE sql AS $$
	SELECT f[1]::bigint, f[2]::bigint
	FROM (SELECT string_to_array(pg_read_file('/proc/self/schedstat'), ' ') AS f) s
$$;

-- bench_stat(): this backend's system CPU time (ms; /proc/self/stat field
-- 15, in clock ticks of 10 ms), minor page faults (field 10), and bytes
-- read and written by system calls (/proc/self/io rchar, wchar: the page
-- cache included)
DROP FUNCTION IF EXISTS bench_stat();
CREATE FUNCTION bench_stat(OUT sys_ms bigint, OUT minflt bigint, OUT rchar bigint, OUT wchar bigint)
LANGUAGE sql AS $$
	SELECT f[13]::bigint * 10, f[8]::bigint,
		   substring(io FROM 'rchar: (\d+)')::bigint, substring(io FROM 'wchar: (\d+)')::bigint
	FROM (SELECT string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') AS f,
				 pg_read_file('/proc/self/io') AS io) s
$$;

-- bench_call(call, agg): time one call inside the backend, with the peak
-- resident size of the backend reset first (Linux clear_refs 5); agg is
-- the aggregate over the call's rows (e.g. 'count(*)'), its value returned
-- as text.  Wall time, time on a CPU and time waiting for a CPU in ms (the
-- rest of the wall time the backend was blocked: I/O, ...), the system part
-- of the CPU time, the minor page faults and the bytes read and written;
-- memory figures in kB: before the call and the peak (VmHWM).
DROP FUNCTION IF EXISTS bench_call(text, text);
CREATE FUNCTION bench_call(call text, agg text DEFAULT 'count(*)::text',
									  OUT ms numeric, OUT cpu_ms numeric, OUT wait_ms numeric, OUT result text,
									  OUT sys_ms bigint, OUT minflt bigint, OUT rchar bigint, OUT wchar bigint,
									  OUT hwm bigint, OUT rss0 bigint, OUT anon0 bigint,
									  OUT file0 bigint, OUT shmem0 bigint,
									  OUT anon1 bigint, OUT file1 bigint, OUT shmem1 bigint)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	s0 record;
	s1 record;
	p0 record;
	p1 record;
	st record;
BEGIN
	EXECUTE 'COPY (SELECT 5) TO ''/proc/self/clear_refs''';
	st := bench_status();
	rss0 := st.rss; anon0 := st.anon; file0 := st.file; shmem0 := st.shmem;
	p0 := bench_stat();
	s0 := bench_sched();
	t0 := clock_timestamp();
	EXECUTE 'SELECT ' || agg || ' FROM ' || call INTO result;
	ms := round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
	s1 := bench_sched();
	p1 := bench_stat();
	sys_ms := p1.sys_ms - p0.sys_ms;
	minflt := p1.minflt - p0.minflt;
	rchar := p1.rchar - p0.rchar;
	wchar := p1.wchar - p0.wchar;
	cpu_ms := round((s1.cpu_ns - s0.cpu_ns) / 1e6, 1);
	wait_ms := round((s1.wait_ns - s0.wait_ns) / 1e6, 1);
	st := bench_status();
	hwm := st.hwm; anon1 := st.anon; file1 := st.file; shmem1 := st.shmem;
END $$;
