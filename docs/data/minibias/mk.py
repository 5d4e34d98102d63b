import sys; from pathlib import Path
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/bench")
import predict_speed as ps
for ops in map(int, sys.argv[3:]):
    ps.write_trace(Path(sys.argv[2]) / f"bench-{ops}-10000000.optrace", ops, 10_000_000, 1)
