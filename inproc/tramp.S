/* SPDX-License-Identifier: MIT */
/*
 * The in-process engine's trampolines (x86-64 SysV).
 *
 * Every interposed function enters ct_inproc_tramp with %r11 = its slot
 * (struct ct_slot: real function at 0, spec row + 1 at 8, 0: untraced). An untraced slot
 * whose function is known costs two compares and a jump. A traced one saves
 * every register that can carry an argument (rdi, rsi, rdx, rcx, r8, r9,
 * rax for varargs, xmm0-7), and calls ct_inproc_entry(regs, slot, sp),
 * which records the entry and says what to run (rax) and whether to see
 * its return (rdx); the caller's return address is kept in the thread's
 * shadow stack. The registers come back; a call whose return is not seen
 * jumps to the function. Else the trampoline takes the caller's return
 * address off the stack and calls the function: its own return address
 * lands in the same slot, so the function sees the stack exactly as its
 * caller left it (stack arguments where it expects them), and every call
 * and return pairs up for the CPU's return predictor. Back from it, the
 * return registers (rax, rdx, xmm0, xmm1) are saved around
 * ct_inproc_exit(rax, sp), which records the call and gives back the
 * caller's return address, and it returns there.
 * %r10 and %r11 are scratch registers no call passes anything in (r10 is
 * the static chain of nested functions, which no runtime API is).
 */
	.text

	.globl ct_inproc_tramp
	.type ct_inproc_tramp, @function
ct_inproc_tramp:
.Ltramp:
	cmpl $0, 8(%r11)
	jne .Lhook
	cmpq $0, (%r11)
	je .Lhook
	jmp *(%r11)
.Lhook:
	/* At entry %rsp = 8 mod 16: 200 bytes make it 16-aligned for the call
	 * and for movaps. */
	subq $200, %rsp
	movq %rdi, 0(%rsp)
	movq %rsi, 8(%rsp)
	movq %rdx, 16(%rsp)
	movq %rcx, 24(%rsp)
	movq %r8, 32(%rsp)
	movq %r9, 40(%rsp)
	movq %rax, 48(%rsp)
	movaps %xmm0, 64(%rsp)
	movaps %xmm1, 80(%rsp)
	movaps %xmm2, 96(%rsp)
	movaps %xmm3, 112(%rsp)
	movaps %xmm4, 128(%rsp)
	movaps %xmm5, 144(%rsp)
	movaps %xmm6, 160(%rsp)
	movaps %xmm7, 176(%rsp)
	movq %rsp, %rdi
	movq %r11, %rsi
	leaq 200(%rsp), %rdx
	call ct_inproc_entry
	movq %rax, %r11
	movq %rdx, %r10
	movq 0(%rsp), %rdi
	movq 8(%rsp), %rsi
	movq 16(%rsp), %rdx
	movq 24(%rsp), %rcx
	movq 32(%rsp), %r8
	movq 40(%rsp), %r9
	movq 48(%rsp), %rax
	movaps 64(%rsp), %xmm0
	movaps 80(%rsp), %xmm1
	movaps 96(%rsp), %xmm2
	movaps 112(%rsp), %xmm3
	movaps 128(%rsp), %xmm4
	movaps 144(%rsp), %xmm5
	movaps 160(%rsp), %xmm6
	movaps 176(%rsp), %xmm7
	addq $200, %rsp
	testq %r10, %r10
	jnz 1f
	jmp *%r11
1:	addq $8, %rsp   /* the caller's return address, kept by ct_inproc_entry */
	call *%r11
	/* Back from the function: %rsp = 0 mod 16. */
	subq $48, %rsp
	movq %rax, 0(%rsp)
	movq %rdx, 8(%rsp)
	movaps %xmm0, 16(%rsp)
	movaps %xmm1, 32(%rsp)
	movq %rax, %rdi
	leaq 48(%rsp), %rsi
	call ct_inproc_exit
	movq %rax, %r11
	movq 0(%rsp), %rax
	movq 8(%rsp), %rdx
	movaps 16(%rsp), %xmm0
	movaps 32(%rsp), %xmm1
	addq $48, %rsp
	pushq %r11
	ret
	.size ct_inproc_tramp, . - ct_inproc_tramp

/*
 * dlsym, interposed: libcudart finds the driver's cuGetProcAddress with
 * dlsym(libcuda, "cuGetProcAddress_v2"), and every driver function through
 * it; a program that dlopens a runtime finds its functions by handle.
 * ct_inproc_dlsym_wants(name) says whether this name is one we answer
 * (the C function to run instead); for every other name this jumps to the
 * real dlsym with the caller's return address on the stack, so that
 * RTLD_NEXT still means the library after the caller's.
 */
	.globl dlsym
	.type dlsym, @function
dlsym:
	pushq %rdi
	pushq %rsi
	subq $8, %rsp
	movq %rsi, %rdi
	call ct_inproc_dlsym_wants
	addq $8, %rsp
	popq %rsi
	popq %rdi
	testq %rax, %rax
	jnz 1f
	jmp *ct_dlsym_real(%rip)
1:	jmp *%rax
	.size dlsym, . - dlsym

/* The trampolines handed out for driver entry points, bound at run time. */
	.globl ct_pool_stubs
	.hidden ct_pool_stubs
	.balign 16
ct_pool_stubs:
	.set ct_i, 0
	.rept 1024 /* CT_POOL */
	.balign 16 /* CT_POOL_STUB */
	leaq ct_pool_slots + ct_i * 32(%rip), %r11
	jmp .Ltramp
	.set ct_i, ct_i + 1
	.endr

	.bss
	.balign 64
	.globl ct_pool_slots
	.hidden ct_pool_slots
ct_pool_slots:
	.zero 1024 * 32

	.section .note.GNU-stack,"",@progbits
