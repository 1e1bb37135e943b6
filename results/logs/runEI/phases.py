#!/usr/bin/env python3
# Runs EH and EI: each measured method's SM clock, power and throttle reasons, from nvidia-smi's 20 ms samples
# (smi.csv) over the last 80% of the method's timing window (from the previous row's created_at to
# its own). Run it inside ei/ after extracting ei.tgz: python3 phases.py bf16_r1 f16_r1 bf16_r2 f16_r2 bf16_r3 > phases.txt
import sqlite3, csv, datetime, sys, collections
smi=[]
for r in csv.reader(open('smi.csv')):
    if len(r)<5: continue
    try: t=datetime.datetime.strptime(r[0].strip(),'%Y/%m/%d %H:%M:%S.%f')
    except: continue
    def f(x):
        try: return float(x)
        except: return None
    smi.append((t,f(r[1]),f(r[2]),f(r[3]),r[4].strip()))
print("method                       config                 median_ms  window_s  samples  clock_MHz  power_W  temp_C  reasons (share)")
import sys
for tag in sys.argv[1:]:
    db=sqlite3.connect(f'{tag}.db')
    rows=db.execute("select method, coalesce(config_name,''), median_ms, created_at from v_measurements where status='ok' order by created_at").fetchall()
    prev=None
    for m,c,med,ca in rows:
        end=datetime.datetime.strptime(ca,'%Y-%m-%dT%H:%M:%S.%fZ')
        start=prev if prev else end-datetime.timedelta(seconds=6)
        prev=end
        # the last 80% of the window: past the checks and warm-up
        s0=start+(end-start)*0.2
        w=[x for x in smi if s0<=x[0]<=end and x[1] is not None]
        if not w or m in ('read_b',): continue
        cl=sum(x[1] for x in w)/len(w); pw=sum(x[2] for x in w)/len(w); tp=sum(x[3] for x in w)/len(w)
        rs=collections.Counter(x[4] for x in w); top=", ".join(f"{k}:{v*100//len(w)}%" for k,v in rs.most_common(2))
        cfg='stk2' if 'stk2' in c else ('plain' if c else '')
        print(f"{tag:9} {m:17} {cfg:6} {med:9.4f} {(end-s0).total_seconds():7.1f} {len(w):7d} {cl:9.0f} {pw:8.0f} {tp:6.1f}  {top}")
