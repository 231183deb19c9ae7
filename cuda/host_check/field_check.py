# Usage: g++ -DG16_EMULATE_PTX -O2 -std=c++17 field_check.cpp -o fc && python3 field_check.py ./fc
import sys
import random, subprocess
for which,(m,n) in enumerate([(0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,8),(0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,12)]):
    R=1<<(32*n); Ri=pow(R,-1,m)
    cases=[(0,0),(m-1,m-1),(0,m-1),(1,m-1),(m-1,0)]+[(random.randrange(m),random.randrange(m)) for _ in range(300)]
    inp="%d %d\n"%(which,len(cases))+"".join("%0*x %0*x\n"%(8*n,a,8*n,b) for a,b in cases)
    out=subprocess.run([sys.argv[1]],input=inp,capture_output=True,text=True).stdout.split()
    k=0; bad=0
    for a,b in cases:
        exp=[(a+b)%m,(a-b)%m,a*b*Ri%m,a*a*Ri%m,(-a)%m,a*R%m,a*Ri%m, (pow(a*Ri,m-2,m)*R)%m, (pow(a*Ri,12345,m)*R)%m]
        for e in exp:
            if int(out[k],16)!=e: bad+=1
            k+=1
    print(which,"bad",bad,"of",k)
