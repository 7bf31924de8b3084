"""CPU tests of tools/bench_python.py: its one-line exits (no PyTorch, no GPU, bad options) run
as a process against stand-in torch modules, kornia's install from wheels (which wheel each
Python gets; the real .deps/wheels of `make wheels` where present), and the targets it prints."""
import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "bench_python.py")
WHEELS = os.path.join(ROOT, ".deps", "wheels")

spec = importlib.util.spec_from_file_location("bench_python", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

NO_TORCH = "raise ImportError('stand-in: torch is not installed')\n"
NO_GPU = "class cuda:\n    @staticmethod\n    def is_available():\n        return False\n"


class TestExits(unittest.TestCase):
    """Each bad start: exit 2, one line on stderr, nothing on stdout, no CSV."""

    def run_bench(self, torch_module, *args):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "torch"))
            with open(os.path.join(tmp, "torch", "__init__.py"), "w") as f:
                f.write(torch_module)
            csv = os.path.join(tmp, "out", "b.csv")
            args = list(args) if any(a.startswith("--csv") for a in args) else ["--csv", csv] + list(args)
            env = dict(os.environ, PYTHONPATH=tmp)
            p = subprocess.run([sys.executable, SCRIPT] + args, env=env, capture_output=True, text=True,
                               timeout=120)
            self.assertFalse(os.path.exists(csv), "a CSV was written")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("bench-python: "), lines[0])
        return lines[0]

    def test_no_gpu(self):
        self.assertIn("needs a GPU", self.run_bench(NO_GPU))
        self.assertIn("needs a GPU", self.run_bench(NO_GPU, "--quick"))

    def test_no_torch(self):
        self.assertIn("needs PyTorch with CUDA", self.run_bench(NO_TORCH))

    def test_bad_options(self):
        self.assertIn("--reps must be 0", self.run_bench(NO_GPU, "--reps", "-3"))
        self.assertIn("cannot write --csv", self.run_bench(NO_GPU, "--csv", "/proc/no/such/b.csv"))
        self.assertIn("cannot write --csv", self.run_bench(NO_GPU, "--csv", ROOT))

    def test_unknown_option(self):  # argparse: usage and one error line, exit 2
        p = subprocess.run([sys.executable, SCRIPT, "--frobnicate"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unrecognized arguments: --frobnicate", p.stderr)


def fake_wheel(folder, filename, requires_python=None):
    """A wheel holding only its METADATA and a module file named after the wheel."""
    name, version = filename.split("-")[:2]
    with zipfile.ZipFile(os.path.join(folder, filename), "w") as z:
        meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
        if requires_python:
            meta += "Requires-Python: %s\n" % requires_python
        z.writestr("%s-%s.dist-info/METADATA" % (name, version), meta)
        z.writestr("%s/__init__.py" % name, "WHEEL = %r\n" % filename)


class TestKorniaWheels(unittest.TestCase):
    def test_unpack_picks_what_this_python_can_use(self):
        here = "cp%d%d" % sys.version_info[:2]
        with tempfile.TemporaryDirectory() as wheels, tempfile.TemporaryDirectory() as target:
            fake_wheel(wheels, "kornia-0.8.2-py2.py3-none-any.whl", ">=3.9")
            fake_wheel(wheels, "kornia-0.9.0-py3-none-any.whl", ">=3.%d" % (sys.version_info[1] + 1))
            fake_wheel(wheels, "kornia-0.7.0-py3-none-any.whl", ">=3.8")
            fake_wheel(wheels, "kornia_rs-0.2.0-cp39-cp39-manylinux2014_x86_64.whl")
            fake_wheel(wheels, "kornia_rs-0.2.0-%s-%s-manylinux2014_x86_64.whl" % (here, here))
            fake_wheel(wheels, "kornia_rs-0.3.0-%s-%s-macosx_11_0_arm64.whl" % (here, here))
            self.assertIsNone(bench.unpack_wheels(wheels, target, ["kornia", "kornia-rs"]))
            got = {}
            for name in ("kornia", "kornia_rs"):
                with open(os.path.join(target, name, "__init__.py")) as f:
                    got[name] = f.read()
            self.assertIn("kornia-0.8.2-", got["kornia"])  # 0.9.0 needs a newer Python
            self.assertIn("-%s-%s-manylinux" % (here, here), got["kornia_rs"])
            why = bench.unpack_wheels(wheels, target, ["packaging"])
            self.assertEqual(why, "no packaging wheel for Python %d.%d in %s" % (sys.version_info[:2] + (wheels,)))

    def test_no_wheels_says_make_wheels(self):
        if importlib.util.find_spec("kornia") is not None:
            self.skipTest("kornia is installed here")
        with tempfile.TemporaryDirectory() as wheels:
            fn, why = bench.import_kornia(wheels, os.path.join(wheels, "target"))
        self.assertIsNone(fn)
        self.assertTrue(why.startswith("not installed ("), why)
        self.assertIn("make wheels", why)
        self.assertNotIn("\n", why)

    @unittest.skipUnless(os.path.isdir(WHEELS) and any(n.startswith("kornia-") for n in os.listdir(WHEELS)),
                         "no .deps/wheels (make wheels)")
    def test_carried_wheels_install_for_this_python(self):
        """pip --no-index --target, and the unpacking without pip, both give kornia's integral
        image and a kornia_rs that this Python loads."""
        names = ["kornia", "kornia-rs", "packaging"]
        with tempfile.TemporaryDirectory() as tmp:
            for how, install in (("pip", bench.install_wheels), ("unpack", bench.unpack_wheels)):
                target = os.path.join(tmp, how)
                self.assertIsNone(install(WHEELS, target, names), how)
                self.assertTrue(os.path.isfile(os.path.join(target, "kornia", "enhance", "integral.py")), how)
                # this process's path first (torch, where it is), then the target, as the bench does
                env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), target])))
                code = "import kornia_rs, sys; sys.exit(0 if kornia_rs.__file__.startswith(%r) else 1)" % target
                p = subprocess.run([sys.executable, "-c", code], env=env,
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(p.returncode, 0, how + ": " + p.stderr)
                if importlib.util.find_spec("torch") is not None:  # then kornia imports too
                    code = "from kornia.enhance import integral_image; print(integral_image.__module__)"
                    p = subprocess.run([sys.executable, "-c", code], env=env,
                                       capture_output=True, text=True, timeout=300)
                    self.assertEqual(p.stdout.strip(), "kornia.enhance.integral", how + ": " + p.stderr)


def row(case, method, ms, copy_ms=1.0, note=""):
    return {"gpu": "G", "case": case, "dtype": case.split()[0], "batch": 1, "rows": 1, "cols": 1,
            "method": method, "median_ms": ms, "min_ms": ms, "copy_ms": copy_ms, "ratio_to_copy": ms / copy_ms,
            "reps": 3, "note": note}


class TestTable(unittest.TestCase):
    def printed(self, rows, missing=None):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            bench.table(rows, "G", missing or {})
        return out.getvalue()

    def test_targets(self):
        rows = [row("float32 64x 1920x1080", "satlib", 2.0), row("float32 64x 1920x1080", "torch", 9.0),
                row("float32 64x 1920x1080", "satlib+squares", 2.4),
                row("float32 4096x4096", "satlib", 1.0), row("float32 4096x4096", "torch", 8.5),
                row("float32 4096x4096", "satlib+squares", 1.5),
                row("float32 16x 3840x2160", "satlib", 1.0), row("float32 16x 3840x2160", "torch", 3.0),
                row("uint8 4096x4096", "satlib", 1.0), row("uint8 4096x4096", "npp", 9.0)]
        text = self.printed(rows, {"kornia": "not installed (why)"})
        lines = text.splitlines()
        targets = [l for l in lines if "torch / satlib >=" in l]
        self.assertEqual(len(targets), 2, text)  # the batch of 16 4K images has no target
        self.assertIn("batch of 64", targets[0])
        self.assertEqual(targets[0].split()[-6:], ["float32", "64x", "1920x1080", "4.50", "NOT", "met"])
        self.assertEqual(targets[1].split()[-4:], ["float32", "4096x4096", "8.50", "met"])
        self.assertTrue(any("float32 64x 1920x1080" in l and "1.20  met" in l for l in lines), text)
        self.assertTrue(any("float32 4096x4096" in l and "1.50  NOT met" in l for l in lines), text)
        self.assertIn("kornia: not installed (why)", lines)
        self.assertIn("| float32 16x 3840x2160 | 1.000 | 1.00 | - | 3.00 | - | 3.0 | - |", lines)

    def test_target_not_measured(self):
        text = self.printed([row("float32 1920x1080", "satlib", 1.0)])
        self.assertIn("batch of 64 1920x1080 f32", text)
        self.assertIn("not measured in this run", text)


if __name__ == "__main__":
    unittest.main()
