/*
 * cxx: C++ on the ATtiny13A, with a C file linked in. Any clock.
 * A global object's constructor runs before main (it sets DDRB bit PB1 and a
 * start value of 40); main adds 2 through a C function (sum.c), stores the
 * result in `cxx_result` (42) and then drives PB0 high through a template,
 * where it stays.
 */
#include <avr/io.h>
#include <stdint.h>

#include "sum.h"

extern "C" {
volatile uint8_t cxx_result;
}

namespace {

template <uint8_t Bit> struct OutputPin {
    static void enable() { DDRB |= 1 << Bit; }
    static void high() { PORTB |= 1 << Bit; }
};

class Counter {
  public:
    Counter() : value_(40) { OutputPin<PB1>::enable(); }
    void add(uint8_t n) { value_ = sum_u8(value_, n); }
    uint8_t value() const { return value_; }

  private:
    volatile uint8_t value_;
};

Counter counter; // constructed by the start-up code, before main

} // namespace

int main() {
    counter.add(2);
    cxx_result = counter.value();
    OutputPin<PB0>::enable();
    OutputPin<PB0>::high();
    for (;;) {
    }
}
