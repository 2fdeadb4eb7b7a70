"""Everything is declared in pyproject.toml; this only adds enrich_auto.pth at the top of
site-packages, which setuptools cannot declare (package data lands inside a package)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "enrich_auto.pth"


class BuildPyWithPth(build_py):
    def run(self) -> None:
        super().run()
        self.copy_file(PTH, str(Path(self.build_lib) / PTH))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]


setup(cmdclass={"build_py": BuildPyWithPth})
