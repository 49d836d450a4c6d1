"""A worked migration, the Python side: docs/migration/worked_example.R translated to irtbridge.

docs/coming-from-r.md ("A worked migration") shows the two step by step, and
tests/test_migration_guide.py runs both and compares their numbers.

    python docs/migration/worked_example.py [numbers.json]
"""

# ---- Setup ----
import numpy as np

import irtbridge
from irtbridge.calibration import score_key
from irtbridge.example_data import r_dataset

# ---- 1. Score the multiple-choice answers with the key ----
key = [1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5]
raw = r_dataset("mirt", "SAT12")
scored = score_key(raw, key, missing=8)  # 600 x 32: 1 right, 0 wrong, NaN not answered (8)
items = list(scored.columns)

# ---- 2. DIF between two administrations ----
# SAT12 has no background variable: its first and last 300 rows stand in for two administrations.
admin = np.repeat(["first", "second"], 300)
# items 9-32 anchor the scale (equal in both groups); the groups' latent means and variances are free
anchored = irtbridge.calibrate_groups(scored, admin, "2PL", invariance=[*items[8:], "free_means", "free_var"])
dif = anchored.dif(["a1", "d"], scheme="add", items=items[:8], p_adjust="holm")
print(dif[["X2", "df", "p", "p_adjusted"]])

# ---- 3. DRF: what items 1-8 do together to the expected test score ----
drf = anchored.drf(best_fitting=True)                           # sDRF, uDRF, dDRF and their d metric
drf_ci = anchored.drf(draws=100, seed=1, best_fitting=True)     # intervals and tests from 100 draws
print(drf_ci)

# ---- 4. Link two forms through their common items ----
# Form A (items 1-20) went to the first administration, form B (items 13-32) to the second.
form_a = scored.loc[admin == "first", items[:20]]
form_b = scored.loc[admin == "second", items[12:]]
common = items[12:20]
fit_a = irtbridge.calibrate(form_a, "2PL")
# fixed common items: form A's estimates, form B's latent mean and variance free
table = irtbridge.parameter_table(form_b, "2PL")
values_a = fit_a.parameters().set_index(["item", "name"])["value"]
fix = table["item"].isin(common) & table["name"].isin(["a1", "d"])
table.loc[fix, "value"] = [values_a[(i, n)] for i, n in zip(table.loc[fix, "item"], table.loc[fix, "name"])]
table.loc[fix, "est"] = False
table.loc[table["name"].isin(["MEAN_1", "COV_11"]), "est"] = True
linked = irtbridge.calibrate(form_b, "2PL", parameters=table)
print(linked.items.loc[["Item.13", "Item.21"]])  # a common item, a new one
# mirt's fixed-item calibration (Kim, 2006): form B's answers, NaN for the items it did not have
form_b_all = scored.loc[admin == "second"].copy()
form_b_all[items[:12]] = np.nan
fixed = irtbridge.calibration.calibrate_fixed(form_b_all, fit_a)

# ---- Numbers compared by tests/test_migration_guide.py ----
if __name__ == "__main__":
    import json
    import sys

    def _flat(*parts):  # numbers column by column (R's order), NaN as null
        values = np.concatenate([np.asarray(p, dtype=float).ravel(order="F") for p in parts])
        return [None if np.isnan(v) else float(v) for v in values]

    if len(sys.argv) > 1:
        numbers = {
            "scored": _flat(scored),
            "anchored": _flat(anchored.loglik, anchored.latent_means["second"], anchored.latent_vars["second"],
                              anchored.items["second"][["a", "b"]]),
            "dif": _flat(dif[["X2", "df", "p", "p_adjusted"]]), "dif_items": list(dif.index),
            "drf": _flat(drf[["sDRF", "uDRF", "dDRF", "sDRF*", "uDRF*", "dDRF*"]]),
            "drf_ci": _flat(drf_ci[["value", "ci_lower", "ci_upper", "X2", "df", "p"]]),
            "linked": _flat(linked.loglik, linked.items[["a", "b"]], linked.latent_mean, linked.latent_var),
            "fixed": _flat(fixed.loglik, fixed.items.loc[items[20:], ["a", "b"]]),
        }
        with open(sys.argv[1], "w") as f:
            json.dump(numbers, f)
