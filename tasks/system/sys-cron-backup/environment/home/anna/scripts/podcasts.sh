#!/bin/bash
podcatcher --update-all
