/*
 * crash.c -- the crash report: when an agent (or anything else) crashes the
 * process after an agent is loaded, the VM says what it was doing, as
 * HotSpot's hs_err file does, instead of dying with a bare SIGSEGV:
 *
 *     vmpi: fatal error: signal SIGSEGV (11)
 *     vmpi: in agent 'libbad_args.so', NotifyEvent(METHOD_ENTRY)
 *     vmpi: VM stack trace:
 *         at hello.main (hello.gcl:3)
 *
 * (plus "vmpi: in the VMPI function RunGC" when the agent had called into
 * the VM) and exits with status 128 + the signal, as a shell reports a process
 * killed by it.  vmpi knows which agent and event (vmpi_caller,
 * vmpi_delivering, dispatch.h); the VM prints its own stack trace
 * (vm_services.h, print_stack_trace), so the dependency stays vm -> vmpi.
 *
 * The handlers run on an alternate stack (sigaltstack), so an agent that
 * overflows the stack is reported too.  The report is written with write(2)
 * from strings that exist before the crash (signal names, the agent's name
 * in its slot, event names from vmpi.h's table); the VM's stack trace comes
 * last, through stdio on the unbuffered stderr, which is as far as
 * async-signal safety is practical.  Nothing is flushed and JVM_SHUT_DOWN is
 * not offered: the process is in an unknown state.
 *
 * One SIGSEGV is no crash: under --vmpi-strict, a read of an event record
 * after its NotifyEvent returned faults on a poisoned page (strict.c); the
 * handler lets strict.c note it and returns, and the breach is reported
 * from ordinary code.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "dispatch.h"
#include "strict.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

static const char *signal_name(int signo) {
    switch (signo) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "signal";
    }
}

static void say(const char *text) {
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
    (void)ignored; /* nothing better to do if stderr is gone */
}

/* The decimal digits of 0 <= n < 1000, written without stdio. */
static void say_number(int n) {
    char digits[4];
    int len = 0;
    if (n >= 100) digits[len++] = (char)('0' + n / 100);
    if (n >= 10) digits[len++] = (char)('0' + n / 10 % 10);
    digits[len++] = (char)('0' + n % 10);
    digits[len] = '\0';
    say(digits);
}

static void report_crash(int signo) {
    say("vmpi: fatal error: signal ");
    say(signal_name(signo));
    say(" (");
    say_number(signo);
    say(")\n");
    if (vmpi_caller) {
        say("vmpi: in agent '");
        say(vmpi_agent_name(vmpi_caller));
        if (vmpi_delivering) {
            const char *event = vmpi_event_name(vmpi_delivering->event_type);
            say("', NotifyEvent(");
            say(event ? event : "?");
            say(")\n");
        } else {
            say("', VMPI_OnLoad\n");
        }
    } else {
        say("vmpi: not in an agent's NotifyEvent or VMPI_OnLoad\n");
    }
    if (vmpi_calling) {
        say("vmpi: in the VMPI function ");
        say(vmpi_calling);
        say("\n");
    }
    if (vmpi_vm && vmpi_vm->print_stack_trace) {
        say("vmpi: VM stack trace:\n");
        vmpi_vm->print_stack_trace(vmpi_vm->vm);
    }
}

static void on_fatal_signal(int signo, siginfo_t *info, void *context) {
    (void)context;
    static volatile sig_atomic_t reporting;
    /* Strict mode's poisoned event record: not a crash, a breach that
     * ordinary code reports once the read has completed (strict.c). */
    if (signo == SIGSEGV && vmpi_strict_stale_read(info->si_addr)) return;
    if (!reporting) { /* a crash inside the report ends the process at once */
        reporting = 1;
        report_crash(signo);
    }
    _exit(128 + signo);
}

void vmpi_install_crash_report(void) {
    static bool installed;
    static char alternate_stack[64 * 1024];
    if (installed) return;
    installed = true;
#ifdef GCLAB_WASM
    return; /* WebAssembly has no signals: a trap ends the module, and the page says so */
#endif
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
    sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        sigaction(fatal_signals[i], &action, NULL);
}
