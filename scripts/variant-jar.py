"""Writes a variant of a Primer jar with some entries replaced, for A/B runs of kernel variants on the GPU
machine (docs/gpu-workflow.md): python3 scripts/variant-jar.py BASE.jar OUT.jar ENTRY=FILE [ENTRY=FILE ...],
e.g. dev/primer/kernels/scan.fatbin=/tmp/v1-scan.fatbin dev/primer/cuda-src/device/scan_kernels.cuh=v1/scan_kernels.cuh.
Every ENTRY must already be in BASE.jar (a misspelt one would otherwise leave the base's file in place)."""
import sys
import zipfile

base, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
replace = dict(pair.split("=", 1) for pair in pairs)
with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
    missing = set(replace) - set(src.namelist())
    if missing:
        sys.exit(f"not in {base}: {', '.join(sorted(missing))}")
    for item in src.infolist():
        data = open(replace[item.filename], "rb").read() if item.filename in replace else src.read(item.filename)
        dst.writestr(item, data)
print(f"{out}: {base} with {len(replace)} entries replaced")
