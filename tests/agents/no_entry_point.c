/* no_entry_point.c -- a shared library that is not an agent: it has no
 * VMPI_OnLoad.  vmrun must say so rather than crash. */
int not_an_agent(void);
int not_an_agent(void) { return 0; }
