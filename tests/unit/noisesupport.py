"""What the noise tests share (test_noise.py, test_noise_models.py,
test_noise_specs.py): a CSV recording written to a file, and the readings of
one press of a seekable model."""

from __future__ import annotations

from pathlib import Path

from fairdie.noise import SeekableNoise


def write_csv(tmp_path: Path, text: str, name: str = "pin.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def recording(tmp_path: Path) -> Path:
    """37 readings (prime, so presses of 16 start at every row in turn)."""
    rows = "\n".join(f"{n},{(n * 613) % 3001}" for n in range(37))
    return write_csv(tmp_path, "n,mv\n" + rows + "\n")


def read_press(model: SeekableNoise, press: int, n: int = 16, channel: int = 2) -> list[float]:
    model.seek(press)
    return [model(channel) for _ in range(n)]
