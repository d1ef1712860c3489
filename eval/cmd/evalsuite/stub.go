package main

func cmdIndex([]string) error { return nil }
func cmdRun([]string) error   { return nil }
func cmdTable([]string) error { return nil }
