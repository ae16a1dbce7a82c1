/* SPDX-License-Identifier: MIT */
/*
 * The code core/capture/remote.c writes into a running process to have one
 * of its threads call a function (dlopen, then the injection library's
 * entry) and go back to exactly where it was. The tracer copies these bytes
 * and the data block after them (filled in) to unused bytes at the end of
 * an executable mapping, points the stopped thread's rip here, and lets it
 * go: from that moment the thread needs nothing more from the tracer, so a
 * tracer killed mid-way leaves it running as before.
 *
 * Entered with every register as the thread had it (rax and the resume
 * address already as the interrupted system call must see them again);
 * the 128-byte red zone below rsp is left alone. All integer registers,
 * the flags and the x87/SSE state are saved on the thread's stack and
 * restored. These bytes are not writable in the process: what the thread
 * writes (the return value, then state 2, its last access to the block)
 * goes to the block at .Lblock, in unused bytes of a writable mapping.
 * After state 2 the thread still runs the pops below, so the tracer only
 * ever writes these same bytes again.
 */
	.section .rodata, "a"
	.balign 16
	.globl ct_remote_tramp
	.globl ct_remote_tramp_data
	.globl ct_remote_tramp_end
ct_remote_tramp:
	lea	-128(%rsp), %rsp
	pushq	.Lresume(%rip)
	pushfq
	push	%rax
	push	%rbx
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%rbp
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	.Lblock(%rip), %rbx
	mov	%rsp, %rbp
	and	$-64, %rsp
	sub	$512, %rsp
	fxsave64 (%rsp)
	cld
	mov	.Larg0(%rip), %rdi
	mov	.Larg1(%rip), %rsi
	call	*.Lfn(%rip)
	mov	%rax, 16(%rbx)		/* block.ret */
	fxrstor64 (%rsp)
	mov	%rbp, %rsp
	movq	$2, 8(%rbx)		/* block.state: done; the block is not touched again */
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rbp
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rbx
	pop	%rax
	popfq
	ret	$128
	.balign 8
/* What the call needs, read only (struct ct_remote_args in remote.c); the tracer fills it. */
ct_remote_tramp_data:
.Lfn:		.quad 0
.Larg0:		.quad 0
.Larg1:		.quad 0
.Lresume:	.quad 0
.Lblock:	.quad 0
ct_remote_tramp_end:
	.section .note.GNU-stack, "", @progbits
