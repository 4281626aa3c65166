/**
 * Exact xsd:decimal arithmetic: a BigInt significand scaled by a power of ten. JS numbers cannot
 * hold 0.1 exactly, and SPARQL requires 0.1 + 0.2 = 0.3 for decimals.
 *
 * Besides its value, a decimal remembers whether it is "pointed": written with a fraction part,
 * or computed from one. An integral value prints as "3.0" when pointed and as "3" otherwise, which
 * is what the W3C suites expect of both 1.0 + 2 ("3.0") and CEIL(2.5) ("3"), much like the scale
 * of Java's BigDecimal that produced those results.
 */

/** Significant digits kept by a division that does not terminate (XPath asks for at least 18). */
const DIVISION_DIGITS = 24;

const DECIMAL_LEXICAL = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))$/;

export class Decimal {
  /** value = significand / 10^scale; always normalized: no trailing zero digits when scale > 0. */
  private constructor(
    readonly significand: bigint,
    readonly scale: number,
    readonly pointed: boolean,
  ) {}

  /** `pointed` defaults to whether the unnormalized scale has fraction digits. */
  static of(significand: bigint, scale = 0, pointed = scale > 0): Decimal {
    let m = significand;
    let s = scale;
    while (s > 0 && m % 10n === 0n) {
      m /= 10n;
      s--;
    }
    while (s < 0) {
      m *= 10n;
      s++;
    }
    return new Decimal(m, s, pointed);
  }

  static fromBigInt(value: bigint): Decimal {
    return new Decimal(value, 0, false);
  }

  /** The same value, printed with a fraction part even when integral (a cast to xsd:decimal). */
  withPoint(): Decimal {
    return this.pointed ? this : new Decimal(this.significand, this.scale, true);
  }

  /** Parses the xsd:decimal lexical space (no exponent); undefined when not a decimal. */
  static parse(lexical: string): Decimal | undefined {
    const m = DECIMAL_LEXICAL.exec(lexical);
    if (!m) return undefined;
    const intPart = m[2] ?? '';
    const fracPart = m[3] ?? m[4] ?? '';
    const digits = (intPart + fracPart).replace(/^0+(?=\d)/, '') || '0';
    const sig = BigInt(digits);
    return Decimal.of(m[1] === '-' ? -sig : sig, fracPart.length);
  }

  /** The exact decimal a finite JS number prints as (shortest round-trip form). */
  static fromNumber(value: number): Decimal {
    if (!Number.isFinite(value)) throw new RangeError('not a finite number');
    return Decimal.fromScientific(String(value));
  }

  /** Parses a number in scientific notation such as "1.5e-7" exactly. */
  static fromScientific(text: string): Decimal {
    const m = /^([+-]?[\d.]+)(?:[eE]([+-]?\d+))?$/.exec(text);
    if (!m) throw new RangeError(`not a number: ${text}`);
    const base = Decimal.parse(m[1]);
    if (!base) throw new RangeError(`not a number: ${text}`);
    const exponent = m[2] ? Number(m[2]) : 0;
    return Decimal.of(base.significand, base.scale - exponent);
  }

  isZero(): boolean {
    return this.significand === 0n;
  }

  sign(): number {
    return this.significand === 0n ? 0 : this.significand < 0n ? -1 : 1;
  }

  isInteger(): boolean {
    return this.scale === 0;
  }

  negate(): Decimal {
    return new Decimal(-this.significand, this.scale, this.pointed);
  }

  abs(): Decimal {
    return this.significand < 0n ? this.negate() : this;
  }

  add(other: Decimal): Decimal {
    const [a, b, scale] = align(this, other);
    return Decimal.of(a + b, scale, this.pointed || other.pointed);
  }

  subtract(other: Decimal): Decimal {
    const [a, b, scale] = align(this, other);
    return Decimal.of(a - b, scale, this.pointed || other.pointed);
  }

  multiply(other: Decimal): Decimal {
    return Decimal.of(this.significand * other.significand, this.scale + other.scale, this.pointed || other.pointed);
  }

  /** Exact when the quotient terminates within the precision, else rounded half away from zero. */
  divide(other: Decimal): Decimal {
    if (other.significand === 0n) throw new RangeError('decimal division by zero');
    const extra = Math.max(0, DIVISION_DIGITS - digitCount(this.significand) + digitCount(other.significand));
    const numerator = this.significand * 10n ** BigInt(extra);
    let quotient = numerator / other.significand;
    const remainder = numerator % other.significand;
    if (remainder !== 0n && 2n * absBig(remainder) >= absBig(other.significand)) {
      quotient += numerator < 0n !== other.significand < 0n ? -1n : 1n;
    }
    return Decimal.of(quotient, this.scale - other.scale + extra, true);
  }

  compare(other: Decimal): number {
    const [a, b] = align(this, other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  equals(other: Decimal): boolean {
    return this.significand === other.significand && this.scale === other.scale;
  }

  /** Rounds toward negative infinity to an integer. */
  floor(): bigint {
    if (this.scale === 0) return this.significand;
    const div = 10n ** BigInt(this.scale);
    const q = this.significand / div;
    return this.significand < 0n && q * div !== this.significand ? q - 1n : q;
  }

  ceil(): bigint {
    return -this.negate().floor();
  }

  /** Rounds toward zero to an integer. */
  truncate(): bigint {
    return this.scale === 0 ? this.significand : this.significand / 10n ** BigInt(this.scale);
  }

  /** XPath fn:round: half-way values go toward positive infinity. */
  round(): bigint {
    return this.add(Decimal.of(5n, 1)).floor();
  }

  toNumber(): number {
    return Number(this.toPlainString());
  }

  /** XSD canonical form: "1.5", "-0.5"; an integral value is "3.0" when pointed, else "3". */
  toCanonical(): string {
    const plain = this.toPlainString();
    return this.pointed && this.scale === 0 ? plain + '.0' : plain;
  }

  /** XPath string form: like the canonical form but integral values have no fraction ("1"). */
  toPlainString(): string {
    const negative = this.significand < 0n;
    const digits = absBig(this.significand).toString();
    if (this.scale === 0) return (negative ? '-' : '') + digits;
    const padded = digits.padStart(this.scale + 1, '0');
    const point = padded.length - this.scale;
    return (negative ? '-' : '') + padded.slice(0, point) + '.' + padded.slice(point);
  }
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.significand, b.significand, a.scale];
  if (a.scale > b.scale) return [a.significand, b.significand * 10n ** BigInt(a.scale - b.scale), a.scale];
  return [a.significand * 10n ** BigInt(b.scale - a.scale), b.significand, b.scale];
}

function absBig(v: bigint): bigint {
  return v < 0n ? -v : v;
}

function digitCount(v: bigint): number {
  return v === 0n ? 1 : absBig(v).toString().length;
}
