/*
 * class_load_hook.c -- JVMPI 1.2's CLASS_LOAD_HOOK: agents may replace the
 * program before the VM is made (control.h, vmpi_send_class_load_hook).
 *
 * gclab has no class files: a .bc image holds every class of a program, so
 * the hook is posted once, with the whole image, and a replacement is a
 * whole program, loaded and verified by the caller like any .bc file.
 *
 * Invariant: the VM frees only what it allocated.  An agent's replacement
 * must come from malloc_f (JVMPI 1.2: "the VM is responsible for freeing
 * the new class file data buffer"); malloc_f records each block it hands
 * out during one delivery, the chosen block is kept and the others freed,
 * and an answer that points anywhere else is refused with a message, never
 * freed or read past its end.
 */
#include <stdio.h>
#include <stdlib.h>

#include "vmpi/control.h"
#include "dispatch.h"

#define MAX_BLOCKS 16

/* The blocks malloc_f handed out during the delivery under way. */
static unsigned char *blocks[MAX_BLOCKS];
static unsigned int block_sizes[MAX_BLOCKS];
static int num_blocks;

static void *hook_malloc(unsigned int size) {
    if (num_blocks == MAX_BLOCKS) return NULL;
    unsigned char *block = malloc(size ? size : 1);
    if (!block) return NULL;
    blocks[num_blocks] = block;
    block_sizes[num_blocks++] = size;
    return block;
}

/* Frees every malloc_f block but `kept`. */
static void free_blocks_but(const unsigned char *kept) {
    for (int i = 0; i < num_blocks; i++)
        if (blocks[i] != kept) free(blocks[i]);
    num_blocks = 0;
}

/* Why the agent's answer cannot be used, or NULL if it can: new_data must
 * be the image it was given (unchanged or cut short) or a malloc_f block,
 * and new_len must fit in it. */
static const char *unusable_answer(const unsigned char *new_data, int32_t new_len, const uint8_t *image,
                                   size_t len) {
    if (!new_data) return "new_class_data is NULL";
    if (new_len <= 0) return "new_class_data_len is not positive";
    if (new_data == image) return (size_t)new_len <= len ? NULL : "new_class_data_len is past the end of class_data";
    for (int i = 0; i < num_blocks; i++)
        if (blocks[i] == new_data)
            return (unsigned int)new_len <= block_sizes[i] ? NULL
                                                           : "new_class_data_len is past the end of its malloc_f block";
    return "new_class_data was not allocated with malloc_f";
}

bool vmpi_class_load_hook_enabled(void) { return vmpi_enabled[VMPI_EVENT_CLASS_LOAD_HOOK] != 0; }

bool vmpi_send_class_load_hook(uint8_t **image, size_t *len, VmpiImageCheck accept, void *ctx) {
    if (*len > INT32_MAX) {
        fprintf(stderr, "vmrun: CLASS_LOAD_HOOK: the program's image is over 2 GiB\n");
        return false;
    }
    for (uint32_t i = 0; i < vmpi_num_agents; i++) {
        VmpiAgent *agent = &vmpi_agents[i];
        if (!agent->enabled[VMPI_EVENT_CLASS_LOAD_HOOK]) continue;
        VMPI_Event event = {.event_type = VMPI_EVENT_CLASS_LOAD_HOOK, .env_id = vmpi_current_env()};
        event.u.class_load_hook.class_data = *image;
        event.u.class_load_hook.class_data_len = (int32_t)*len;
        event.u.class_load_hook.new_class_data = *image;
        event.u.class_load_hook.new_class_data_len = (int32_t)*len;
        event.u.class_load_hook.malloc_f = hook_malloc;
        VMPI_Event answer;
        vmpi_deliver_answered(agent, &event, &answer);
        unsigned char *new_data = answer.u.class_load_hook.new_class_data;
        int32_t new_len = answer.u.class_load_hook.new_class_data_len;
        if (new_data == *image && (size_t)new_len == *len) { /* kept */
            free_blocks_but(NULL);
            continue;
        }
        const char *why = unusable_answer(new_data, new_len, *image, *len);
        if (why) {
            fprintf(stderr, "vmrun: agent '%s': CLASS_LOAD_HOOK: %s\n", vmpi_agent_name(agent), why);
            free_blocks_but(NULL);
            return false;
        }
        free_blocks_but(new_data);
        if (!accept(new_data, (size_t)new_len, vmpi_agent_name(agent), ctx)) {
            if (new_data != *image) free(new_data);
            return false;
        }
        if (new_data != *image) {
            free(*image);
            *image = new_data;
        }
        *len = (size_t)new_len;
    }
    return true;
}
