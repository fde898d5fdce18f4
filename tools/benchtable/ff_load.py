"""Times Feedback Forensics' loader on an AnnotatedPairs file, for benchtable.

Run as `python3 ff_load.py FILE` with the feedback_forensics package
importable (pip install feedback-forensics, or PYTHONPATH at a checkout).
It imports the loader first, so that Python's and pandas' start is not
counted, then times get_votes_dict_from_annotated_pairs_json, the function
Feedback Forensics' app calls to load such a file, and prints one JSON line.
"""

import json
import pathlib
import resource
import sys
import time

from feedback_forensics.data import loader

# Feedback Forensics' loader decodes with msgspec (imported as mjson); a copy
# of it without msgspec falls back to Python's json.
decoder = "msgspec" if hasattr(loader, "mjson") else "Python's json"

t0 = time.perf_counter()
votes = loader.get_votes_dict_from_annotated_pairs_json(pathlib.Path(sys.argv[1]))
load = time.perf_counter() - t0
print(
    json.dumps(
        {
            "load_s": load,
            "rows": len(votes["df"]),
            "columns": len(votes["df"].columns),
            # ru_maxrss is in KiB on Linux, in bytes on macOS.
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            / (1 << 20 if sys.platform == "darwin" else 1 << 10),
            "decoder": decoder,
        }
    )
)
